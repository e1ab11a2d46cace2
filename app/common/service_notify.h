#pragma once

// Tells a service manager what a server is doing (sd_notify: systemd's Type=notify units wait
// for READY=1 before starting what depends on the server). A no-op when not started by one
// (NOTIFY_SOCKET unset).

#include <string>
#include <systemd/sd-daemon.h>

namespace shardmap::app {

inline void notifyReady(const std::string& status)
{
    (void)sd_notifyf(0, "READY=1\nSTATUS=%s", status.c_str());
}

inline void notifyStopping(const std::string& status)
{
    (void)sd_notifyf(0, "STOPPING=1\nSTATUS=%s", status.c_str());
}

} // namespace shardmap::app
