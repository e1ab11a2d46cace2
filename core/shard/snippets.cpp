// makeSnippet's window: the tokens of the text, where the query's phrases stand in them, and the
// window of maxTokens that holds the most different phrases (then the most matches), chosen and
// centred as FTS5's snippet() does it (sqlite's fts5_aux.c), so both engines cut a text alike.

#include "core/shard/snippets.h"

#include <algorithm>
#include <set>

namespace shardmap::core {

namespace {

Status collectPhrases(
    const QueryNode& node, const std::string& field, Fts5Tokens& tokenizer, std::vector<SnippetPhrase>& phrases)
{
    switch (node.kind) {
    case QueryNodeKind::Term: {
        auto tokens = tokenizer.tokens(node.text);
        if (!tokens)
            return tokens.error();
        if (!tokens->empty())
            phrases.push_back({ field, std::move(*tokens), node.prefix });
        return {};
    }
    case QueryNodeKind::Field:
        return node.children.empty() ? Status {} : collectPhrases(node.children.front(), node.text, tokenizer, phrases);
    case QueryNodeKind::Not:
        // A hit has its first operand, never the others.
        return node.children.empty() ? Status {} : collectPhrases(node.children.front(), field, tokenizer, phrases);
    case QueryNodeKind::And:
    case QueryNodeKind::Or:
        for (const auto& child : node.children)
            if (auto status = collectPhrases(child, field, tokenizer, phrases); !status)
                return status;
        return {};
    }
    return {};
}

struct TokenSpan {
    std::string token;
    std::size_t start = 0;
    std::size_t end = 0;
};

// One place where a phrase stands: its first token and how many it covers.
struct PhraseHit {
    std::size_t first = 0;
    std::size_t count = 0;
    std::size_t phrase = 0;
};

bool standsAt(const std::vector<TokenSpan>& spans, std::size_t at, const SnippetPhrase& phrase)
{
    if (at + phrase.tokens.size() > spans.size())
        return false;
    for (std::size_t k = 0; k < phrase.tokens.size(); ++k) {
        const auto& want = phrase.tokens[k];
        const auto& have = spans[at + k].token;
        const bool last = k + 1 == phrase.tokens.size();
        if (last && phrase.prefix ? !have.starts_with(want) : have != want)
            return false;
    }
    return true;
}

std::vector<PhraseHit> findHits(
    const std::vector<TokenSpan>& spans, std::string_view field, const std::vector<SnippetPhrase>& phrases)
{
    std::vector<PhraseHit> hits;
    for (std::size_t at = 0; at < spans.size(); ++at)
        for (std::size_t p = 0; p < phrases.size(); ++p)
            if ((phrases[p].field.empty() || phrases[p].field == field) && standsAt(spans, at, phrases[p]))
                hits.push_back({ at, phrases[p].tokens.size(), p });
    return hits;
}

// 1000 for each different phrase wholly inside [start, start + width), 1 for each repeat.
long windowScore(const std::vector<PhraseHit>& hits, std::size_t start, std::size_t width)
{
    std::set<std::size_t> seen;
    long score = 0;
    for (const auto& hit : hits)
        if (hit.first >= start && hit.first + hit.count <= start + width)
            score += seen.insert(hit.phrase).second ? 1000 : 1;
    return score;
}

// The window [at, at + width) moved so that its hits sit in its middle, within the text.
std::size_t centred(const std::vector<PhraseHit>& hits, std::size_t at, std::size_t tokens, std::size_t width)
{
    std::size_t last = at;
    for (const auto& hit : hits)
        if (hit.first >= at && hit.first < at + width)
            last = hit.first + hit.count;
    const auto slack = static_cast<long>(width) - static_cast<long>(last - at);
    long start = static_cast<long>(at) - slack / 2;
    start = std::min(start, static_cast<long>(tokens) - static_cast<long>(width));
    return static_cast<std::size_t>(std::max(start, 0L));
}

// Tokens that begin a sentence: the first, and every one after a '.' or ':' and white space.
std::vector<std::size_t> sentenceStarts(std::string_view text, const std::vector<TokenSpan>& spans)
{
    std::vector<std::size_t> starts { 0 };
    for (std::size_t t = 1; t < spans.size(); ++t) {
        std::size_t at = spans[t].start;
        while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t' || text[at - 1] == '\n' || text[at - 1] == '\r'))
            --at;
        if (at < spans[t].start && at > 0 && (text[at - 1] == '.' || text[at - 1] == ':'))
            starts.push_back(t);
    }
    return starts;
}

// The window's first token, chosen as FTS5's snippet() chooses it: for each hit, the window
// starting there scores its phrases and is then centred on its hits; the window starting at the
// hit's sentence scores the same plus a bonus (120 at the text's start, 100 elsewhere), so a
// snippet begins with its sentence when that costs no match. The first best score wins.
std::size_t bestWindowStart(
    std::string_view text, const std::vector<TokenSpan>& spans, const std::vector<PhraseHit>& hits, std::size_t width)
{
    const std::size_t tokens = spans.size();
    const auto sentences = tokens > width ? sentenceStarts(text, spans) : std::vector<std::size_t> {};
    std::size_t best = 0;
    long bestScore = 0;
    for (const auto& hit : hits) {
        if (const long score = windowScore(hits, hit.first, width); score > bestScore) {
            bestScore = score;
            best = centred(hits, hit.first, tokens, width);
        }
        if (sentences.empty())
            continue;
        const auto after = std::upper_bound(sentences.begin(), sentences.end(), hit.first);
        const std::size_t sentence = *std::prev(after);
        if (sentence < hit.first) {
            const long score = windowScore(hits, sentence, width) + (sentence == 0 ? 120 : 100);
            if (score > bestScore) {
                bestScore = score;
                best = sentence;
            }
        }
    }
    return best;
}

} // namespace

Result<std::vector<SnippetPhrase>> snippetPhrases(const QueryNode& query, Fts5Tokens& tokenizer)
{
    std::vector<SnippetPhrase> phrases;
    if (auto status = collectPhrases(query, {}, tokenizer, phrases); !status)
        return status.error();
    return phrases;
}

Result<Snippet> makeSnippet(std::string_view text, std::string_view field, const std::vector<SnippetPhrase>& phrases,
    Fts5Tokens& tokenizer, int maxTokens)
{
    std::vector<TokenSpan> spans;
    auto tokenized = tokenizer.tokenize(text, [&](std::string_view token, std::size_t start, std::size_t end) {
        spans.push_back({ std::string(token), start, end });
    });
    if (!tokenized)
        return tokenized.error();
    if (spans.empty())
        return Snippet { std::string(text), 0 };

    const auto width = static_cast<std::size_t>(std::max(maxTokens, 1));
    const auto hits = findHits(spans, field, phrases);
    const std::size_t first = bestWindowStart(text, spans, hits, width);
    const std::size_t last = std::min(spans.size(), first + width); // one past the window's last token

    Snippet snippet;
    std::size_t copied = first == 0 ? 0 : spans[first].start;
    const std::size_t stop = last == spans.size() ? text.size() : spans[last - 1].end;
    if (first > 0)
        snippet.text += kSnippetEllipsis;
    for (const auto& hit : hits) {
        if (hit.first < first || hit.first + hit.count > last || spans[hit.first].start < copied)
            continue; // outside the window, or overlapping the phrase marked before it
        const std::size_t from = spans[hit.first].start;
        const std::size_t to = spans[hit.first + hit.count - 1].end;
        snippet.text.append(text.substr(copied, from - copied));
        snippet.text.append(kSnippetOpen).append(text.substr(from, to - from)).append(kSnippetClose);
        copied = to;
        ++snippet.marks;
    }
    snippet.text.append(text.substr(copied, stop - copied));
    if (last < spans.size())
        snippet.text += kSnippetEllipsis;
    return snippet;
}

} // namespace shardmap::core
