// The query compiler's implementation: a lexer, a recursive-descent parser over the operators'
// precedence levels, and an emitter that writes the tree as FTS5 with the fewest parentheses.
#include "core/query/query_compiler.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace shardmap::core {

namespace {

// ---------------------------------------------------------------------------------------------
// Errors

Error queryError(std::string message)
{
    return makeError(ErrorCode::InvalidArgument, std::move(message));
}

std::string atOffset(std::size_t offset)
{
    return " at offset " + std::to_string(offset);
}

// ---------------------------------------------------------------------------------------------
// Characters

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// What the unicode61 tokenizer keeps: ASCII letters and digits, and (as far as we can tell without
// Unicode tables) every non-ASCII byte. A term without any of these would compile to an FTS5
// phrase with no tokens, which silently matches nothing; an error tells the user why.
bool isTokenChar(char c)
{
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x80 || (byte >= '0' && byte <= '9') || (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z');
}

// The longest run of token characters in `text` (empty when there is none).
std::string_view longestWord(std::string_view text)
{
    std::string_view longest;
    std::size_t start = 0;
    for (std::size_t at = 0; at <= text.size(); ++at) {
        if (at < text.size() && isTokenChar(text[at]))
            continue;
        if (at - start > longest.size())
            longest = text.substr(start, at - start);
        start = at + 1;
    }
    return longest;
}

bool hasTokenChar(std::string_view text)
{
    for (char c : text) {
        if (isTokenChar(c))
            return true;
    }
    return false;
}

// Ends a bare word. A colon ends it only after at least one character, so that `title:fox` is a
// field qualifier while a word that merely starts with ':' stays a term.
bool endsWord(std::string_view text, std::size_t start, std::size_t pos)
{
    const char c = text[pos];
    return isSpace(c) || c == '"' || c == '(' || c == ')' || (c == ':' && pos > start);
}

// FTS5 reads barewords as column names; anything else must be a quoted string.
bool isFtsBareword(std::string_view text)
{
    for (char c : text) {
        if (!isTokenChar(c) && c != '_')
            return false;
    }
    return !text.empty();
}

// FTS5 string syntax: double quotes, an embedded quote doubled. Every user term goes through here,
// so punctuation (`c++`, `foo-bar`, `NEAR`, `*`) can never be read as FTS5 syntax.
std::string quoteFts(std::string_view text)
{
    std::string out = "\"";
    for (char c : text) {
        out += c;
        if (c == '"')
            out += '"';
    }
    return out + "\"";
}

// ---------------------------------------------------------------------------------------------
// Tokens

enum class TokenKind { Term, Phrase, Field, LParen, RParen, And, Or, Not, End };

struct Token {
    TokenKind kind = TokenKind::End;
    std::string_view text; // Term/Phrase: the text to search for; Field: the field name
    std::size_t offset = 0; // byte offset of the first character
    std::size_t end = 0; // byte offset just past the token
    bool prefix = false; // Term/Phrase: ended in '*'
};

bool isOperator(TokenKind kind)
{
    return kind == TokenKind::And || kind == TokenKind::Or || kind == TokenKind::Not;
}

bool startsOperand(TokenKind kind)
{
    return kind == TokenKind::Term || kind == TokenKind::Phrase || kind == TokenKind::LParen
        || kind == TokenKind::Field;
}

std::string describeToken(const Token& token)
{
    switch (token.kind) {
    case TokenKind::Field: return "'" + std::string(token.text) + ":'";
    case TokenKind::LParen: return "'('";
    case TokenKind::RParen: return "')'";
    case TokenKind::And: return "'AND'";
    case TokenKind::Or: return "'OR'";
    case TokenKind::Not: return "'NOT'";
    case TokenKind::End: return "end of query";
    case TokenKind::Term:
    case TokenKind::Phrase: break;
    }
    return "'" + std::string(token.text) + "'";
}

TokenKind keywordKind(std::string_view word)
{
    if (word == "AND")
        return TokenKind::And;
    if (word == "OR")
        return TokenKind::Or;
    if (word == "NOT")
        return TokenKind::Not;
    return TokenKind::Term;
}

// Removes trailing '*' (and, inside a phrase, the spaces before them) and reports whether any
// star was there: `qu*` and `"quick bro*"` are prefix searches on their last word.
bool stripPrefixMarker(std::string_view& text)
{
    bool prefix = false;
    while (!text.empty() && (text.back() == '*' || (prefix && isSpace(text.back())))) {
        prefix = prefix || text.back() == '*';
        text.remove_suffix(1);
    }
    return prefix;
}

// Splits the query into tokens up front: the query is at most kMaxQueryBytes long, and a token
// list makes the parser's one-token lookahead trivial.
class Lexer {
public:
    explicit Lexer(std::string_view query)
        : m_query(query)
    {
    }

    Result<std::vector<Token>> run();

private:
    Status lexToken();
    Status lexPhrase();
    Status lexWord();
    void lexField(std::size_t start, std::size_t colon);
    Status pushTerm(Token token, bool isPhrase);
    bool followsField(std::size_t offset) const;
    void skipSpace();

    std::string_view m_query;
    std::size_t m_pos = 0;
    std::vector<Token> m_tokens;
};

Result<std::vector<Token>> Lexer::run()
{
    for (skipSpace(); m_pos < m_query.size(); skipSpace()) {
        Status status = lexToken();
        if (!status)
            return status.error();
    }
    m_tokens.push_back(Token { TokenKind::End, {}, m_query.size(), m_query.size(), false });
    return std::move(m_tokens);
}

void Lexer::skipSpace()
{
    while (m_pos < m_query.size() && isSpace(m_query[m_pos]))
        ++m_pos;
}

Status Lexer::lexToken()
{
    const char c = m_query[m_pos];
    if (c == '"')
        return lexPhrase();
    if (c != '(' && c != ')')
        return lexWord();
    const TokenKind kind = c == '(' ? TokenKind::LParen : TokenKind::RParen;
    m_tokens.push_back(Token { kind, m_query.substr(m_pos, 1), m_pos, m_pos + 1, false });
    ++m_pos;
    return {};
}

Status Lexer::lexPhrase()
{
    const std::size_t start = m_pos;
    const std::size_t close = m_query.find('"', start + 1);
    if (close == std::string_view::npos)
        return queryError("unterminated phrase starting" + atOffset(start));
    m_pos = close + 1;
    while (m_pos < m_query.size() && m_query[m_pos] == '*')
        ++m_pos;
    const bool starAfterQuote = m_pos > close + 1;
    return pushTerm(
        Token { TokenKind::Phrase, m_query.substr(start + 1, close - start - 1), start, m_pos, starAfterQuote }, true);
}

Status Lexer::lexWord()
{
    const std::size_t start = m_pos;
    while (m_pos < m_query.size() && !endsWord(m_query, start, m_pos))
        ++m_pos;
    if (m_pos < m_query.size() && m_query[m_pos] == ':') {
        lexField(start, m_pos);
        return {};
    }
    const std::string_view word = m_query.substr(start, m_pos - start);
    const TokenKind kind = followsField(start) ? TokenKind::Term : keywordKind(word);
    if (kind != TokenKind::Term) {
        m_tokens.push_back(Token { kind, word, start, m_pos, false });
        return {};
    }
    return pushTerm(Token { TokenKind::Term, word, start, m_pos, false }, false);
}

void Lexer::lexField(std::size_t start, std::size_t colon)
{
    m_pos = colon + 1;
    m_tokens.push_back(Token { TokenKind::Field, m_query.substr(start, colon - start), start, m_pos, false });
}

// In `title:AND` the word cannot be an operator, so it is searched for.
bool Lexer::followsField(std::size_t offset) const
{
    return !m_tokens.empty() && m_tokens.back().kind == TokenKind::Field && m_tokens.back().end == offset;
}

Status Lexer::pushTerm(Token token, bool isPhrase)
{
    const std::string_view original = token.text;
    token.prefix = stripPrefixMarker(token.text) || token.prefix;
    const std::string what = isPhrase ? "phrase" : "term";
    if (isPhrase && original.find_first_not_of(" \t\n\r\f\v") == std::string_view::npos)
        return queryError("empty phrase" + atOffset(token.offset));
    if (!hasTokenChar(token.text))
        return queryError(
            what + " '" + std::string(original) + "'" + atOffset(token.offset) + " contains no letters or digits");
    if (const std::string_view word = longestWord(token.text); word.size() > kMaxQueryWordBytes)
        return queryError("the word" + atOffset(static_cast<std::size_t>(word.data() - m_query.data())) + " is "
            + std::to_string(word.size()) + " bytes long; at most " + std::to_string(kMaxQueryWordBytes)
            + " are searched for");
    m_tokens.push_back(token);
    return {};
}

// ---------------------------------------------------------------------------------------------
// Syntax tree

using NodeKind = QueryNodeKind;
using Node = QueryNode;

bool isOperator(const Node& node)
{
    return node.kind == NodeKind::And || node.kind == NodeKind::Or || node.kind == NodeKind::Not;
}

// Same-kind chains become one n-ary node, so the output has no redundant parentheses (FTS5's
// parser stack is shallow, see kFtsParserStackBudget).
Node startChain(NodeKind kind, Node left)
{
    if (left.kind == kind)
        return left;
    Node chain { kind, {}, false, {} };
    chain.children.push_back(std::move(left));
    return chain;
}

// AND and OR associate, so a same-kind right operand is spliced in; NOT does not: `a NOT (b NOT c)`
// is not `(a NOT b) NOT c`.
void appendOperand(Node& chain, Node operand)
{
    if (operand.kind != chain.kind || chain.kind == NodeKind::Not) {
        chain.children.push_back(std::move(operand));
        return;
    }
    for (Node& child : operand.children)
        chain.children.push_back(std::move(child));
}

Node combine(NodeKind kind, Node left, Node right)
{
    Node chain = startChain(kind, std::move(left));
    appendOperand(chain, std::move(right));
    return chain;
}

bool containsField(const Node& node)
{
    if (node.kind == NodeKind::Field)
        return true;
    for (const Node& child : node.children) {
        if (containsField(child))
            return true;
    }
    return false;
}

// ---------------------------------------------------------------------------------------------
// Parser: recursive descent over the precedence levels below, loosest first.

struct Level {
    TokenKind op;
    NodeKind kind;
    bool implicit; // adjacent operands are joined with this operator
};

constexpr std::array<Level, 3> kLevels { {
    { TokenKind::Or, NodeKind::Or, false },
    { TokenKind::And, NodeKind::And, true },
    { TokenKind::Not, NodeKind::Not, false },
} };

class Parser {
public:
    Parser(std::vector<Token> tokens, const QuerySchema& schema)
        : m_tokens(std::move(tokens))
        , m_schema(schema)
    {
    }

    Result<Node> parseQuery();

private:
    Result<Node> parseLevel(std::size_t level);
    bool continuesLevel(const Level& level) const;
    Result<Node> parsePrimary();
    Result<Node> parseLeaf();
    Result<Node> parseGroup();
    Result<Node> parseField();
    Status checkField(const Token& field) const;
    bool isKnownField(std::string_view name) const;
    Error unknownField(const Token& field) const;
    Error missingOperand() const;
    Error danglingOperator(const Token& op, const Token& found) const;
    const Token& peek() const { return m_tokens[m_pos]; }
    const Token& advance() { return m_tokens[m_pos++]; }
    const Token* previous() const { return m_pos == 0 ? nullptr : &m_tokens[m_pos - 1]; }

    std::vector<Token> m_tokens;
    const QuerySchema& m_schema;
    std::size_t m_pos = 0;
    int m_depth = 0;
    int m_terms = 0;
    int m_prefixes = 0;
    bool m_inField = false;
};

Result<Node> Parser::parseQuery()
{
    if (peek().kind == TokenKind::End)
        return queryError("empty query");
    Result<Node> root = parseLevel(0);
    if (root && peek().kind != TokenKind::End)
        return queryError("unbalanced ')'" + atOffset(peek().offset));
    return root;
}

Result<Node> Parser::parseLevel(std::size_t level)
{
    if (level == kLevels.size())
        return parsePrimary();
    Result<Node> left = parseLevel(level + 1);
    while (left && continuesLevel(kLevels[level])) {
        if (peek().kind == kLevels[level].op)
            advance();
        Result<Node> right = parseLevel(level + 1);
        if (!right)
            return right;
        left = combine(kLevels[level].kind, std::move(*left), std::move(*right));
    }
    return left;
}

bool Parser::continuesLevel(const Level& level) const
{
    return peek().kind == level.op || (level.implicit && startsOperand(peek().kind));
}

Result<Node> Parser::parsePrimary()
{
    switch (peek().kind) {
    case TokenKind::Term:
    case TokenKind::Phrase: return parseLeaf();
    case TokenKind::LParen: return parseGroup();
    case TokenKind::Field: return parseField();
    default: return missingOperand();
    }
}

Result<Node> Parser::parseLeaf()
{
    const Token& token = advance();
    if (++m_terms > kMaxQueryTerms)
        return queryError("query has more than " + std::to_string(kMaxQueryTerms) + " terms (the next one starts"
            + atOffset(token.offset) + ")");
    if (token.prefix && ++m_prefixes > kMaxQueryPrefixes)
        return queryError("query has more than " + std::to_string(kMaxQueryPrefixes)
            + " prefix searches (the next one starts" + atOffset(token.offset) + ")");
    return Node { NodeKind::Term, std::string(token.text), token.prefix, {} };
}

Result<Node> Parser::parseGroup()
{
    const Token& open = advance();
    if (++m_depth > kMaxQueryDepth)
        return queryError(
            "parentheses nested more than " + std::to_string(kMaxQueryDepth) + " deep" + atOffset(open.offset));
    Result<Node> inner = parseLevel(0);
    if (!inner)
        return inner;
    if (peek().kind != TokenKind::RParen)
        return queryError("'('" + atOffset(open.offset) + " is never closed");
    advance();
    --m_depth;
    return inner;
}

Result<Node> Parser::parseField()
{
    const Token& field = advance();
    Status status = checkField(field);
    if (!status)
        return status.error();
    m_inField = true;
    Result<Node> inner = parsePrimary();
    m_inField = false;
    if (!inner)
        return inner;
    return Node { NodeKind::Field, std::string(field.text), false, { std::move(*inner) } };
}

// The operand must touch the colon: `title: fox` more likely lost a word than meant `title:fox`.
Status Parser::checkField(const Token& field) const
{
    if (!isKnownField(field.text))
        return unknownField(field);
    if (m_inField)
        return queryError("field qualifier " + describeToken(field) + atOffset(field.offset)
            + " is inside another field qualifier; they cannot be nested");
    if (peek().offset != field.end || !startsOperand(peek().kind))
        return queryError(describeToken(field) + atOffset(field.offset)
            + " must be followed directly by a term, a phrase or a parenthesized group");
    return {};
}

bool Parser::isKnownField(std::string_view name) const
{
    for (const std::string& known : m_schema.fields) {
        if (known == name)
            return true;
    }
    return false;
}

Error Parser::unknownField(const Token& field) const
{
    std::string known;
    for (const std::string& name : m_schema.fields)
        known += (known.empty() ? "" : ", ") + name;
    const auto& stored = m_schema.storedOnly;
    if (std::find(stored.begin(), stored.end(), field.text) != stored.end())
        return queryError("field '" + std::string(field.text) + "'" + atOffset(field.offset)
            + " is stored only, not indexed, so it cannot be searched; indexed fields: "
            + (known.empty() ? "(none)" : known));
    return queryError("unknown field '" + std::string(field.text) + "'" + atOffset(field.offset)
        + "; known fields: " + (known.empty() ? "(none)" : known));
}

// Called where an operand was expected but `peek()` is not one; says why in the user's terms.
Error Parser::missingOperand() const
{
    const Token& found = peek();
    const Token* before = previous();
    if (found.kind == TokenKind::Not)
        return queryError(
            "'NOT'" + atOffset(found.offset) + " needs something before it: it is binary, as in 'a NOT b'");
    if (before && isOperator(before->kind))
        return danglingOperator(*before, found);
    if (found.kind == TokenKind::And || found.kind == TokenKind::Or)
        return queryError(describeToken(found) + atOffset(found.offset) + " needs something before it");
    if (found.kind == TokenKind::RParen && before && before->kind == TokenKind::LParen)
        return queryError("empty parentheses" + atOffset(before->offset));
    if (found.kind == TokenKind::RParen)
        return queryError("unbalanced ')'" + atOffset(found.offset));
    // Only `(` can precede the end of the query here: an empty query was rejected up front.
    return queryError("'('" + atOffset(before ? before->offset : 0) + " is never closed");
}

Error Parser::danglingOperator(const Token& op, const Token& found) const
{
    if (found.kind == TokenKind::End || found.kind == TokenKind::RParen)
        return queryError(describeToken(op) + atOffset(op.offset) + " has nothing after it");
    return queryError(describeToken(op) + atOffset(op.offset) + " is followed by " + describeToken(found)
        + atOffset(found.offset) + "; expected a term, a phrase or '('");
}

// ---------------------------------------------------------------------------------------------
// Emitter

// FTS5's expression parser has a fixed stack (about 100 entries; a deeper expression fails with
// "fts5: parser stack overflow"). Queries that compile must run, so compileQuery rejects
// expressions whose estimated stack use is above this budget. The headroom is for the caller,
// which prepends "sp : <token> AND (".
constexpr int kFtsParserStackBudget = 88;

// Measured stack entries: a term or phrase uses up to 3, '(' 1, `colset : (` 3, and every
// operand after the first of an operator 2 more (the reduced left side and the operator).
constexpr int kLeafStackCost = 3;
constexpr int kParenStackCost = 1;
constexpr int kColumnFilterStackCost = 3;
constexpr int kOperatorStackCost = 2;

std::string operatorText(NodeKind kind)
{
    switch (kind) {
    case NodeKind::And: return " AND ";
    case NodeKind::Or: return " OR ";
    case NodeKind::Not: return " NOT ";
    case NodeKind::Term:
    case NodeKind::Field: break;
    }
    return " ";
}

std::string columnSpec(std::string_view column)
{
    return isFtsBareword(column) ? std::string(column) : quoteFts(column);
}

std::string allColumnsSpec(const QuerySchema& schema)
{
    std::string spec = "{";
    for (const std::string& field : schema.fields)
        spec += columnSpec(ftsColumnForField(field)) + " ";
    return spec + columnSpec(kOtherColumn) + "}";
}

// Every part of the output sits under a column filter that names only field columns, so no user
// input can ever match the space column "sp". A subtree without field qualifiers gets the
// all-columns filter; a subtree that mixes them is split into its operands.
class Emitter {
public:
    explicit Emitter(std::string allColumns)
        : m_allColumns(std::move(allColumns))
    {
    }

    // The whole result is one operand (parenthesized if needed), so the caller can AND it.
    std::string emitQuery(const Node& root) const { return emitOperand(root, true); }
    static int stackCost(const Node& root) { return operandCost(root, true); }

private:
    std::string emitOperand(const Node& node, bool scoped) const;
    std::string emitScoped(const Node& node) const;
    std::string emitPlain(const Node& node) const;
    std::string emitOperator(const Node& node, bool scoped) const;
    std::string columnFilter(std::string_view spec, const Node& inner) const;
    static bool needsParens(const Node& node, bool scoped);
    static int operandCost(const Node& node, bool scoped);
    static int nodeCost(const Node& node, bool scoped);
    static int operatorCost(const Node& node, bool scoped);

    std::string m_allColumns;
};

// A scoped subtree without field qualifiers is emitted as `{...} : (...)`, already one operand.
bool Emitter::needsParens(const Node& node, bool scoped)
{
    return isOperator(node) && (!scoped || containsField(node));
}

std::string Emitter::emitOperand(const Node& node, bool scoped) const
{
    std::string text = scoped ? emitScoped(node) : emitPlain(node);
    return needsParens(node, scoped) ? "(" + text + ")" : text;
}

std::string Emitter::emitScoped(const Node& node) const
{
    if (node.kind == NodeKind::Field)
        return columnFilter(columnSpec(ftsColumnForField(node.text)), node.children.front());
    if (!containsField(node))
        return columnFilter(m_allColumns, node);
    return emitOperator(node, true);
}

std::string Emitter::emitPlain(const Node& node) const
{
    if (node.kind == NodeKind::Term)
        return quoteFts(node.text) + (node.prefix ? " *" : "");
    return emitOperator(node, false);
}

std::string Emitter::emitOperator(const Node& node, bool scoped) const
{
    std::string out;
    for (const Node& child : node.children)
        out += (out.empty() ? "" : operatorText(node.kind)) + emitOperand(child, scoped);
    return out;
}

std::string Emitter::columnFilter(std::string_view spec, const Node& inner) const
{
    return std::string(spec) + " : (" + emitPlain(inner) + ")";
}

// Mirrors the emit functions above.
int Emitter::operandCost(const Node& node, bool scoped)
{
    return (needsParens(node, scoped) ? kParenStackCost : 0) + nodeCost(node, scoped);
}

int Emitter::nodeCost(const Node& node, bool scoped)
{
    if (scoped && (node.kind == NodeKind::Field || !containsField(node)))
        return kColumnFilterStackCost + nodeCost(node.kind == NodeKind::Field ? node.children.front() : node, false);
    if (node.kind == NodeKind::Term)
        return kLeafStackCost;
    return operatorCost(node, scoped);
}

int Emitter::operatorCost(const Node& node, bool scoped)
{
    int cost = 0;
    for (std::size_t i = 0; i < node.children.size(); ++i)
        cost = std::max(cost, (i == 0 ? 0 : kOperatorStackCost) + operandCost(node.children[i], scoped));
    return cost;
}

Status checkQueryBytes(std::string_view query)
{
    if (query.size() > kMaxQueryBytes)
        return queryError("query is " + std::to_string(query.size()) + " bytes; at most "
            + std::to_string(kMaxQueryBytes) + " are allowed");
    // FTS5 reads its expression as a C string; a NUL would cut the compiled query short.
    const std::size_t nul = query.find('\0');
    if (nul != std::string_view::npos)
        return queryError("NUL character" + atOffset(nul));
    return {};
}

} // namespace

Result<QueryNode> parseQuery(std::string_view query, const QuerySchema& schema)
{
    Status bytes = checkQueryBytes(query);
    if (!bytes)
        return bytes.error();
    Result<std::vector<Token>> tokens = Lexer(query).run();
    if (!tokens)
        return tokens.error();
    return Parser(std::move(*tokens), schema).parseQuery();
}

std::string ftsColumnForField(std::string_view field)
{
    return "f_" + std::string(field);
}

Result<std::string> compileQuery(std::string_view query, const QuerySchema& schema)
{
    Result<Node> root = parseQuery(query, schema);
    if (!root)
        return root.error();
    const Emitter emitter(allColumnsSpec(schema));
    if (Emitter::stackCost(*root) > kFtsParserStackBudget)
        return queryError("query nests operators of different kinds too deeply for the search engine");
    return emitter.emitQuery(*root);
}

} // namespace shardmap::core
