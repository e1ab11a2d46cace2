#pragma once

// The skeleton every end-to-end bench repeats: the machine it ran on, the command that ran it, a
// fresh work directory, and main's measuring in that directory with a failure said one way.
//
// Errors throw std::runtime_error, as bench_process.h's do.

#include <exception>
#include <filesystem>
#include <iostream>
#include <string>

namespace shardmap::bench {

// The CPU's model name from /proc/cpuinfo ("unknown" without one): results say what ran them.
std::string cpuModel();

// "node_e2e_bench --docs 1000": the program's file name and its arguments, for the report.
std::string joinCommand(int argc, char** argv);

// A new directory PREFIX-XXXXXX under parent (the system temp dir when parent is empty).
std::filesystem::path makeWorkDir(const std::string& parent, const std::string& prefix);

// Makes the work directory (into workDir) and runs measure(workDir) in it. When either throws,
// says "PROGRAM: what" and that the directory is kept, and returns false (main exits 1).
template <typename Measure>
bool measureInWorkDir(const char* program, const std::string& parent, const std::string& prefix,
    std::filesystem::path& workDir, Measure&& measure)
{
    try {
        workDir = makeWorkDir(parent, prefix);
        measure(workDir);
        return true;
    } catch (const std::exception& error) {
        std::cerr << program << ": " << error.what() << "\n";
        if (!workDir.empty())
            std::cerr << "(work directory kept: " << workDir.string() << ")\n";
        return false;
    }
}

// After the report: the work directory removed, or (--keep-data) where it is said.
void finishWorkDir(const std::filesystem::path& workDir, bool keep);

} // namespace shardmap::bench
