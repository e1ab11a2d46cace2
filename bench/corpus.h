#pragma once

// A deterministic synthetic corpus for the benchmarks: pseudo-words from a fixed vocabulary with a
// Zipf-like frequency, documents of about 700 bytes (title + body) spread over spaces whose sizes
// are also Zipf-like (a few large spaces, a long tail of small ones, as real tenants are).
// Everything derives from (seed, index), so any document can be regenerated on its own and every
// run, process and thread sees the same text.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace shardmap::bench {

// SplitMix64: tiny, fast and fully specified, so the corpus is identical on every platform
// (the std distributions are not).
class SplitMix64 final {
public:
    explicit SplitMix64(std::uint64_t seed)
        : m_state(seed)
    {
    }
    std::uint64_t next();
    // Uniform in [0, 1).
    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    // Uniform in [0, bound).
    std::uint64_t below(std::uint64_t bound) { return bound == 0 ? 0 : next() % bound; }

private:
    std::uint64_t m_state;
};

// Samples ranks 0..n-1 with probability proportional to 1 / (rank + 1)^exponent.
class ZipfSampler final {
public:
    ZipfSampler(std::size_t n, double exponent);
    std::size_t sample(SplitMix64& rng) const;
    std::size_t size() const { return m_cdf.size(); }

private:
    std::vector<double> m_cdf;
};

struct CorpusOptions {
    std::uint64_t seed = 42;
    std::size_t vocabulary = 4000;
    std::size_t spaces = 50;
    std::string spacePrefix = "bench-";
    std::size_t targetBytes = 700;
    std::size_t titleWords = 8;
    // When set, a body of exactly this many words (one sentence) instead of targetBytes.
    std::size_t bodyWords = 0;
    // The Zipf exponent of the words' frequencies.
    double wordExponent = 1.0;
};

struct BenchDoc {
    std::string space;
    std::string id;
    std::string title;
    std::string body;
    std::size_t bytes() const { return title.size() + body.size(); }
};

class Corpus final {
public:
    explicit Corpus(CorpusOptions options);

    BenchDoc document(std::uint64_t index) const;
    // The lower-case words of a document's body in order (for phrase queries that do match).
    std::vector<std::string> bodyWords(std::uint64_t index) const;

    std::size_t spaceIndexOf(std::uint64_t index) const;
    std::string spaceName(std::size_t spaceIndex) const;
    std::string docId(std::uint64_t index) const;

    // Word by frequency rank: 0 is the most common.
    const std::string& word(std::size_t rank) const { return m_words[rank]; }
    std::size_t vocabularySize() const { return m_words.size(); }
    const CorpusOptions& options() const { return m_options; }

private:
    SplitMix64 docRng(std::uint64_t index, std::uint64_t stream) const;
    std::vector<std::string> makeVocabulary() const;

    CorpusOptions m_options;
    std::vector<std::string> m_words;
    ZipfSampler m_wordSampler;
    ZipfSampler m_spaceSampler;
};

// Generates documents [first, first + count) on `threads` threads (generation is not measured).
std::vector<BenchDoc> generateDocs(const Corpus& corpus, std::uint64_t first, std::size_t count, unsigned threads);

} // namespace shardmap::bench
