#include "redis/dataset.hpp"

#include "redis/client/scan.hpp"
#include "redis/keys.hpp"

namespace plaudit::redis {

Awaitable<Result<bool>> HoldsPlauditKeys(Client& client) {
  bool any = false;
  std::function<Awaitable<Status>(std::vector<std::string>)> seen =
      [&any](std::vector<std::string>) -> Awaitable<Status> {
    any = true;
    co_return Status{};
  };
  PL_CO_CHECK(co_await ScanKeys(client, std::string(keys::kEveryKey), std::move(seen)));
  co_return any;
}

}  // namespace plaudit::redis
