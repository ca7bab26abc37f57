#pragma once
// Questions about the Redis dataset as a whole.
#include "common/net.hpp"
#include "common/result.hpp"
#include "redis/client/client.hpp"

namespace plaudit::redis {

// Whether Redis holds any key of Plaudit's (on any primary). `plauditd import` loads only
// beside a Redis that holds none: another database's cached rows and unflushed likes there
// would be taken for the new one's.
Awaitable<Result<bool>> HoldsPlauditKeys(Client& client);

}  // namespace plaudit::redis
