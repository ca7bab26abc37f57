#include "redis/scan.hpp"

#include "redis/reply.hpp"

namespace plaudit::redis {

Awaitable<Status> UnlinkMatching(Client& client, std::string pattern,
                                 std::function<bool(std::string_view)> drop) {
  std::string cursor = "0";
  do {
    std::vector<std::string> scan{"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"};
    auto r = co_await client.Command(std::move(scan));
    if (auto st = ReplyOk(r); !st) co_return st;
    if (r->elements.size() != 2) co_return Fail(ErrorCode::kInternal, "unexpected SCAN reply");
    cursor = r->elements[0].str;
    std::vector<std::vector<std::string>> drops;
    for (const auto& key : r->elements[1].elements) {
      if (drop(key.str)) drops.push_back({"UNLINK", key.str});
    }
    if (!drops.empty()) {
      if (auto st = AllOk(co_await client.Pipeline(std::move(drops))); !st) co_return st;
    }
  } while (cursor != "0");
  co_return Status{};
}

}  // namespace plaudit::redis
