#pragma once

// Who runs this process, as the audit log names them.

#include <string>

namespace shardmap::core {

// Who runs this process, for the audit log's actor: $USER when it is set, else the login name of
// the effective user (getpwuid), else empty. The one rule for every client (console, shardmapctl):
// a session without $USER (a service, sudo -i, cron) is still someone, never "unknown".
std::string loginName();

} // namespace shardmap::core
