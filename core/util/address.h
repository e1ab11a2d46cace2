#pragma once

// Which addresses keep traffic on this machine, for the rule that secrets go in plaintext only there.

#include <string_view>

namespace shardmap::core {

// Whether HOST:PORT (or a bare HOST; [v6]:PORT too) is on 127.0.0.0/8, ::1 or localhost: the
// addresses where a secret sent in plaintext stays on the machine.
bool isLoopbackAddress(std::string_view address);

} // namespace shardmap::core
