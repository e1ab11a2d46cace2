#include "bench/corpus.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <thread>
#include <unordered_set>

namespace shardmap::bench {

namespace {

// Syllable parts chosen to give pronounceable words with many distinct 2- and 3-letter
// prefixes, so prefix queries hit realistic, uneven slices of the vocabulary.
constexpr std::array<std::string_view, 26> kOnsets { "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r",
    "s", "t", "v", "w", "z", "st", "tr", "ch", "sh", "br", "pl", "gr", "" };
constexpr std::array<std::string_view, 8> kNuclei { "a", "e", "i", "o", "u", "ai", "ou", "ea" };
constexpr std::array<std::string_view, 8> kCodas { "", "", "", "n", "r", "s", "l", "t" };

constexpr std::uint64_t kSpaceStream = 1;
constexpr std::uint64_t kTextStream = 2;

std::string capitalised(const std::string& word)
{
    std::string out = word;
    if (!out.empty())
        out[0] = static_cast<char>(out[0] - 'a' + 'A');
    return out;
}

} // namespace

std::uint64_t SplitMix64::next()
{
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

ZipfSampler::ZipfSampler(std::size_t n, double exponent)
{
    m_cdf.reserve(n);
    double total = 0;
    for (std::size_t rank = 0; rank < n; ++rank) {
        total += 1.0 / std::pow(static_cast<double>(rank + 1), exponent);
        m_cdf.push_back(total);
    }
    for (auto& value : m_cdf)
        value /= total;
}

std::size_t ZipfSampler::sample(SplitMix64& rng) const
{
    const auto found = std::upper_bound(m_cdf.begin(), m_cdf.end(), rng.unit());
    return std::min(static_cast<std::size_t>(found - m_cdf.begin()), m_cdf.size() - 1);
}

Corpus::Corpus(CorpusOptions options)
    : m_options(std::move(options))
    , m_words(makeVocabulary())
    , m_wordSampler(m_words.size(), m_options.wordExponent)
    // Spaces are as skewed as words: with 50 spaces the largest holds ~22 % of the documents.
    , m_spaceSampler(std::max<std::size_t>(m_options.spaces, 1), 1.0)
{
}

std::vector<std::string> Corpus::makeVocabulary() const
{
    SplitMix64 rng(m_options.seed * 31 + 7);
    std::vector<std::string> words;
    std::unordered_set<std::string> seen;
    while (words.size() < m_options.vocabulary) {
        const std::size_t syllables = 1 + rng.below(3) + (rng.below(4) == 0 ? 1 : 0);
        std::string word;
        for (std::size_t i = 0; i < syllables; ++i) {
            word += kOnsets[rng.below(kOnsets.size())];
            word += kNuclei[rng.below(kNuclei.size())];
            word += kCodas[rng.below(kCodas.size())];
        }
        if (word.size() >= 2 && seen.insert(word).second)
            words.push_back(std::move(word));
    }
    // As in natural language the most frequent words are the short ones.
    std::stable_sort(words.begin(), words.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
    return words;
}

SplitMix64 Corpus::docRng(std::uint64_t index, std::uint64_t stream) const
{
    SplitMix64 mix(m_options.seed ^ (index * 0x2545f4914f6cdd1dULL) ^ (stream << 56));
    return SplitMix64(mix.next());
}

std::size_t Corpus::spaceIndexOf(std::uint64_t index) const
{
    auto rng = docRng(index, kSpaceStream);
    return m_spaceSampler.sample(rng);
}

std::string Corpus::spaceName(std::size_t spaceIndex) const
{
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%03zu", spaceIndex);
    return m_options.spacePrefix + suffix;
}

std::string Corpus::docId(std::uint64_t index) const
{
    char id[32];
    std::snprintf(id, sizeof id, "doc-%010llu", static_cast<unsigned long long>(index));
    return id;
}

BenchDoc Corpus::document(std::uint64_t index) const
{
    BenchDoc doc { spaceName(spaceIndexOf(index)), docId(index), {}, {} };
    auto rng = docRng(index, kTextStream);
    for (std::size_t i = 0; i < m_options.titleWords; ++i) {
        const auto& word = m_words[m_wordSampler.sample(rng)];
        doc.title += i == 0 ? capitalised(word) : " " + word;
    }
    if (m_options.bodyWords > 0) {
        for (std::size_t i = 0; i < m_options.bodyWords; ++i) {
            const auto& word = m_words[m_wordSampler.sample(rng)];
            doc.body += i == 0 ? capitalised(word) : " " + word;
        }
        doc.body += ".";
        return doc;
    }
    // Sentences of 6-15 words until title + body reach the target size.
    std::size_t sentenceLeft = 0;
    while (doc.bytes() < m_options.targetBytes) {
        const auto& word = m_words[m_wordSampler.sample(rng)];
        if (sentenceLeft == 0) {
            doc.body += doc.body.empty() ? capitalised(word) : ". " + capitalised(word);
            sentenceLeft = 6 + rng.below(10);
        } else {
            doc.body += " " + word;
        }
        --sentenceLeft;
    }
    doc.body += ".";
    return doc;
}

std::vector<std::string> Corpus::bodyWords(std::uint64_t index) const
{
    const auto body = document(index).body;
    std::vector<std::string> words;
    std::string current;
    for (const char c : body) {
        if (c >= 'a' && c <= 'z') {
            current += c;
        } else if (c >= 'A' && c <= 'Z') {
            current += static_cast<char>(c - 'A' + 'a');
        } else if (!current.empty()) {
            words.push_back(std::move(current));
            current.clear();
        }
    }
    if (!current.empty())
        words.push_back(std::move(current));
    return words;
}

std::vector<BenchDoc> generateDocs(const Corpus& corpus, std::uint64_t first, std::size_t count, unsigned threads)
{
    std::vector<BenchDoc> docs(count);
    threads = std::max(1U, threads);
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            for (std::size_t i = t; i < count; i += threads)
                docs[i] = corpus.document(first + i);
        });
    }
    for (auto& worker : workers)
        worker.join();
    return docs;
}

} // namespace shardmap::bench
