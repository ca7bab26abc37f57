#include "redis/client/scan.hpp"

#include "redis/client/reply.hpp"

namespace plaudit::redis {

Awaitable<Status> ScanKeys(Client& client, std::string pattern,
                           std::function<Awaitable<Status>(std::vector<std::string>)> each) {
  // A key whose slot moves to another primary mid-walk may be missed by both walks: a walk
  // during which the cluster changed is done again.
  constexpr int kWalks = 5;
  for (int walk = 0; walk < kWalks; ++walk) {
    const uint64_t generation = client.stats().reconnects;
    for (const auto& node : client.Primaries()) {
      std::string cursor = "0";
      do {
        std::vector<std::string> scan{"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"};
        auto r = co_await node->Command(std::move(scan));
        if (auto st = ReplyOk(r); !st) {
          co_return st;
        }
        if (r->elements.size() != 2) {
          co_return Fail(ErrorCode::kInternal, "unexpected SCAN reply");
        }
        cursor = r->elements[0].str;
        std::vector<std::string> keys;
        keys.reserve(r->elements[1].elements.size());
        for (auto& key : r->elements[1].elements) {
          keys.push_back(std::move(key.str));
        }
        if (!keys.empty()) {
          if (auto st = co_await each(std::move(keys)); !st) {
            co_return st;
          }
        }
      } while (cursor != "0");
    }
    if (client.stats().reconnects == generation) {
      co_return Status{};
    }
  }
  co_return Fail(ErrorCode::kUnavailable, "redis: the cluster kept changing during a SCAN");
}

Awaitable<Status> UnlinkMatching(Client& client, std::string pattern,
                                 std::function<bool(std::string_view)> drop) {
  std::function<Awaitable<Status>(std::vector<std::string>)> unlink =
      [&client, &drop](std::vector<std::string> keys) -> Awaitable<Status> {
    std::vector<std::vector<std::string>> drops;
    for (auto& key : keys) {
      if (drop(key)) {
        drops.push_back({"UNLINK", std::move(key)});
      }
    }
    if (drops.empty()) {
      co_return Status{};
    }
    co_return AllOk(co_await client.Pipeline(std::move(drops)));
  };
  co_return co_await ScanKeys(client, std::move(pattern), std::move(unlink));
}

}  // namespace plaudit::redis
