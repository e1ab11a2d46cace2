// readJsonInput's implementation: nlohmann's SAX parser with a depth check in front, building a
// value (or nothing, for checkJsonInput), and its errors without the library's tag.
#include "core/util/json_input.h"

#include <nlohmann/json.hpp>

namespace shardmap::core {

using nlohmann::json;

namespace {

// A SAX consumer that builds nothing, for checkJsonInput.
struct NoValue {
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(json::number_integer_t) { return true; }
    bool number_unsigned(json::number_unsigned_t) { return true; }
    bool number_float(json::number_float_t, const json::string_t&) { return true; }
    bool string(json::string_t&) { return true; }
    bool binary(json::binary_t&) { return true; }
    bool start_object(std::size_t) { return true; }
    bool key(json::string_t&) { return true; }
    bool end_object() { return true; }
    bool start_array(std::size_t) { return true; }
    bool end_array() { return true; }
};

// "at line 2, column 1: syntax error ..." from nlohmann's "[json.exception.parse_error.101] parse
// error at line 2, ...": the library's tag means nothing to whoever wrote the file.
std::string withoutLibraryPrefix(std::string message)
{
    if (message.starts_with("[json.exception.") && message.find("] ") != std::string::npos)
        message.erase(0, message.find("] ") + 2);
    if (message.starts_with("parse error "))
        message.erase(0, std::string_view("parse error ").size());
    return message;
}

// Forwards every SAX event to Inner and stops the parse (nlohmann's parser is iterative) at the
// first array or object deeper than the limit, before Inner sees it.
template <typename Inner> class DepthLimited {
public:
    DepthLimited(Inner& inner, std::size_t maxDepth)
        : m_inner(inner)
        , m_maxDepth(maxDepth)
    {
    }

    bool null() { return m_inner.null(); }
    bool boolean(bool value) { return m_inner.boolean(value); }
    bool number_integer(json::number_integer_t value) { return m_inner.number_integer(value); }
    bool number_unsigned(json::number_unsigned_t value) { return m_inner.number_unsigned(value); }
    bool number_float(json::number_float_t value, const json::string_t& text)
    {
        return m_inner.number_float(value, text);
    }
    bool string(json::string_t& value) { return m_inner.string(value); }
    bool binary(json::binary_t& value) { return m_inner.binary(value); }
    bool start_object(std::size_t size) { return enter() && m_inner.start_object(size); }
    bool key(json::string_t& value) { return m_inner.key(value); }
    bool end_object() { return leave() && m_inner.end_object(); }
    bool start_array(std::size_t size) { return enter() && m_inner.start_array(size); }
    bool end_array() { return leave() && m_inner.end_array(); }
    template <typename Exception> bool parse_error(std::size_t, const std::string&, const Exception& error)
    {
        m_parseError = withoutLibraryPrefix(error.what());
        return false;
    }

    bool tooDeep() const { return m_tooDeep; }
    const std::string& parseError() const { return m_parseError; }

private:
    bool enter()
    {
        m_tooDeep = ++m_depth > m_maxDepth;
        return !m_tooDeep;
    }
    bool leave()
    {
        --m_depth;
        return true;
    }

    Inner& m_inner;
    const std::size_t m_maxDepth;
    std::size_t m_depth = 0;
    bool m_tooDeep = false;
    std::string m_parseError;
};

Error inputError(const std::string& what, const std::string& why)
{
    return makeError(ErrorCode::InvalidArgument, what + " " + why);
}

template <typename Inner>
Status parseLimited(std::string_view text, const std::string& what, const JsonLimits& limits, Inner& inner)
{
    if (text.size() > limits.maxBytes)
        return inputError(what,
            "is " + std::to_string(text.size()) + " bytes; at most " + std::to_string(limits.maxBytes)
                + " are accepted");
    DepthLimited<Inner> sax(inner, limits.maxDepth);
    if (json::sax_parse(text, &sax))
        return {};
    if (sax.tooDeep())
        return inputError(what,
            "nests arrays and objects more than " + std::to_string(limits.maxDepth) + " levels deep; at most "
                + std::to_string(limits.maxDepth) + " are accepted");
    return inputError(what, "is not JSON: " + sax.parseError());
}

} // namespace

Result<json> readJsonInput(std::string_view text, const std::string& what, JsonLimits limits)
{
    json value;
    nlohmann::detail::json_sax_dom_parser<json> builder(value, false);
    if (auto status = parseLimited(text, what, limits, builder); !status)
        return status.error();
    return value;
}

Status checkJsonInput(std::string_view text, const std::string& what, JsonLimits limits)
{
    NoValue none;
    return parseLimited(text, what, limits, none);
}

} // namespace shardmap::core
