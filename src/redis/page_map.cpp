#include "redis/page_map.hpp"

#include "redis/keys.hpp"

namespace plaudit::redis {

Awaitable<Result<std::vector<std::optional<int64_t>>>> PageMap::GetMany(
    std::vector<std::string> urls) {
  std::vector<std::optional<int64_t>> out(urls.size());
  if (urls.empty()) {
    co_return out;
  }
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(urls.size());
  for (auto& url : urls) {
    std::string key = keys::PageMap(url);
    cmds.push_back({"HGET", std::move(key), std::move(url)});
  }
  auto replies = co_await client_.Pipeline(std::move(cmds));
  PL_CO_CHECK(AllOk(replies));
  for (size_t i = 0; i < out.size(); ++i) {
    auto id = (*replies)[i].AsInt();
    if (id && *id > 0) {
      out[i] = id;
    }
  }
  co_return out;
}

Awaitable<Status> PageMap::PutMany(std::vector<std::pair<std::string, int64_t>> entries) {
  if (entries.empty()) {
    co_return Status{};
  }
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(entries.size());
  for (auto& [url, id] : entries) {
    std::string key = keys::PageMap(url);
    cmds.push_back({"HSET", std::move(key), std::move(url), std::to_string(id)});
  }
  co_return AllOk(co_await client_.Pipeline(std::move(cmds)));
}

Awaitable<Status> PageMap::Forget(std::string url) {
  std::string key = keys::PageMap(url);
  std::vector<std::string> argv{"HDEL", std::move(key), std::move(url)};
  co_return ReplyOk(co_await client_.Command(std::move(argv)));
}

}  // namespace plaudit::redis
