// Bash completion of the real shardmapctl, sourced after the bash-completion package as bash
// loads it (issue 27): option values (report --format, --store schemes and sqlite: paths), the ids
// of the map named by --store or $SHARDMAP_STORE, and one shardmapctl process per completion.
#include "ctl_run.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace shardmap::testing;

TEST(CtlCompletion, CompletesOptionValuesAndTheMapsIdsWithOneProcessEach)
{
    TempDir dir;
    const std::string store = "sqlite:" + dir.file("map.db");
    std::vector<std::unique_ptr<NodeProcess>> nodes;
    startCtlFleet(dir, store, nodes);
    for (const char* space : { "acme", "globex" })
        ASSERT_EQ(runCtl(dir, store, { "write", "--space", space, "--id", "d1", "--field", "title=x" }).code, 0);
    // `shardmapctl` on PATH is a wrapper that counts its runs, then runs the real binary.
    std::filesystem::create_directory(dir.file("bin"));
    std::ofstream(dir.file("bin/shardmapctl"))
        << "#!/bin/sh\necho run >> '" << dir.file("runs") << "'\nexec '" << SHARDMAP_CTL_BINARY << "' \"$@\"\n";
    std::filesystem::permissions(dir.file("bin/shardmapctl"), std::filesystem::perms::owner_all);
    // c LINE: completes at the end of LINE as readline would (blanks, ':' and '=' break words),
    // printing the candidates and how many times shardmapctl ran.
    std::ofstream(dir.file("complete.sh"))
        << "source /usr/share/bash-completion/bash_completion\n"
        << "source '" << SHARDMAP_SOURCE_DIR << "/packaging/completion/shardmapctl'\n"
        << "PATH='" << dir.file("bin") << "':$PATH\n"
        << "c() {\n"
        << "  local line=\"$1\" w words=()\n"
        << "  for w in $line; do\n"
        << "    while [[ $w =~ ^([^:=]*)([:=])(.*)$ ]]; do\n"
        << "      [[ -n ${BASH_REMATCH[1]} ]] && words+=(\"${BASH_REMATCH[1]}\")\n"
        << "      words+=(\"${BASH_REMATCH[2]}\"); w=${BASH_REMATCH[3]}\n"
        << "    done\n"
        << "    [[ -n $w ]] && words+=(\"$w\")\n"
        << "  done\n"
        << "  [[ $line == *' ' ]] && words+=('')\n"
        << "  COMP_LINE=\"$line\"; COMP_POINT=${#line}; COMP_WORDS=(\"${words[@]}\"); "
           "COMP_CWORD=$((${#words[@]} - 1))\n"
        << "  rm -f '" << dir.file("runs") << "'\n"
        << "  _shardmapctl\n"
        << "  echo \"${COMPREPLY[*]} ($(wc -l < '" << dir.file("runs") << "'))\"\n"
        << "}\n"
        << "while IFS= read -r line; do c \"$line\"; done\n";
    const std::string db = dir.file("map.db");
    const std::vector<std::pair<std::string, std::string>> cases {
        { "shardmapctl mig", "migrate migrations" },
        { "shardmapctl report --format ", "pdf csv json" },
        { "shardmapctl --json report --paper ", "a4 letter" },
        { "shardmapctl --store ", "sqlite: etcd://" },
        { "shardmapctl --store=sq", "sqlite:" },
        { "shardmapctl --store sqlite:" + dir.file("ma"), db },
        { "shardmapctl --store sqlite:" + db + " shard set-state ", "s0 s1" },
        { "shardmapctl --store sqlite:" + db + " shard set-state s0 ", "active draining readonly retired" },
        { "shardmapctl --store=sqlite:" + db + " migrate acme --to s", "s0 s1" },
        { "shardmapctl --store sqlite:" + db + " space where a", "acme" },
        { "shardmapctl --store sqlite:" + db + " node remove ", "n0 n1" },
        { "shardmapctl --store sqlite:" + db + " plan drain --exclude ", "s0 s1" },
        { "shardmapctl --store sqlite:" + db + " migrations list --st", "--state --store" },
        { "shardmapctl shard set-state ", "" },
    };
    std::string input;
    for (const auto& [line, expected] : cases)
        input += line + "\n";
    std::ofstream(dir.file("lines")) << input;
    const auto run = runProgram(
        dir, { "/bin/bash", "-c", "bash '" + dir.file("complete.sh") + "' < '" + dir.file("lines") + "'" }, {}, "bash");
    ASSERT_EQ(run.code, 0) << run.err;
    std::istringstream out(run.out);
    for (const auto& [line, expected] : cases) {
        std::string got;
        std::getline(out, got);
        EXPECT_EQ(got, expected + " (1)") << line;
    }
    // With the store in $SHARDMAP_STORE, as shardmapctl itself reads it.
    const auto fromEnv = runProgram(dir,
        { "/bin/bash", "-c", "echo 'shardmapctl space list --shard ' | bash '" + dir.file("complete.sh") + "'" },
        { "SHARDMAP_STORE=" + store }, "bash-env");
    EXPECT_EQ(fromEnv.out, "s0 s1 (1)\n") << fromEnv.err;
}
