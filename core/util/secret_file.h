#pragma once

// Files that hold secrets (shardmapd's --tokens file, an etcd password_file) must be their owner's
// alone: a copy of the token hashes lets nobody in, but a writer adds tokens of their own, and an
// etcd password read by another account is that account's etcd user. Checked where such a file is
// read, at start and on every re-read.

#include "core/util/result.h"

#include <string>

namespace shardmap::core {

// FailedPrecondition naming `what` and the mode when the file's group or others may read or write
// it ("chmod 600 FILE" says the fix); the error of stat when it cannot be looked at.
Status checkSecretFile(const std::string& path, const std::string& what);

} // namespace shardmap::core
