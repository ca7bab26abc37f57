#pragma once
// The process's open-file limit: every client connection is a descriptor, and systemd's
// default soft limit (1024) is far below what a server needs, while its hard limit is not.
#include <cstddef>

namespace plaudit {

// Raises the soft RLIMIT_NOFILE to the hard limit (best effort) and returns the soft limit in
// force afterwards.
size_t RaiseOpenFileLimit();

// The default --max-connections for an open-file limit: room kept for Redis, SQL, the log and
// the data files (256), at least 16, at most 10,000.
size_t DefaultMaxConnections(size_t open_file_limit);

}  // namespace plaudit
