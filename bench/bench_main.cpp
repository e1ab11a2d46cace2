// bench_main's implementation: /proc/cpuinfo's model name, mkdtemp for the work directory.
#include "bench/bench_main.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace shardmap::bench {

std::string cpuModel()
{
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("model name")) {
            const auto colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    }
    return "unknown";
}

std::string joinCommand(int argc, char** argv)
{
    std::string out = std::filesystem::path(argv[0]).filename().string();
    for (int i = 1; i < argc; ++i)
        out += std::string(" ") + argv[i];
    return out;
}

std::filesystem::path makeWorkDir(const std::string& parent, const std::string& prefix)
{
    const auto base = parent.empty() ? std::filesystem::temp_directory_path() : std::filesystem::path(parent);
    std::string pattern = (base / (prefix + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr)
        throw std::runtime_error("cannot create a temp directory under " + base.string());
    return pattern;
}

void finishWorkDir(const std::filesystem::path& workDir, bool keep)
{
    if (!keep)
        std::filesystem::remove_all(workDir);
    else
        std::cerr << "data kept in " << workDir.string() << "\n";
}

} // namespace shardmap::bench
