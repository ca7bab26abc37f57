// ArticleCache's list versions (render/article_lists.cpp): what a published list page shows is
// versioned by the lists' pl:lv:{pub}, and per like shard by pl:lv:{lN} (the articles'
// fields, like and comment counts) and pl:lvw:{lN} (their view counts). The scripts that
// change those raise them in the same step (lib_list_version.lua, like_set.lua,
// article_view.lua); here they are read, and born.
#include <sodium.h>

#include <algorithm>
#include <charconv>

#include "common/when_all.hpp"
#include "redis/article_cache.hpp"
#include "redis/keys.hpp"
#include "redis/script.hpp"

namespace plaudit::redis {
namespace {

constexpr int64_t kBornAbove = int64_t{1} << 40;  // below: unborn (list_version_born.lua)

bool Unborn(const Reply& r) {
  if (r.is_nil()) {
    return true;
  }
  int64_t v = 0;
  auto [end, ec] = std::from_chars(r.str.data(), r.str.data() + r.str.size(), v);
  return ec != std::errc{} || v < kBornAbove;
}

}  // namespace

std::string ArticleCache::NewVersionBase() {
  uint64_t raw = 0;
  randombytes_buf(&raw, sizeof raw);
  constexpr uint64_t kSpan = (uint64_t{1} << 62) - (uint64_t{1} << 40);
  return std::to_string(static_cast<uint64_t>(kBornAbove) + raw % kSpan);
}

Awaitable<Result<std::vector<Reply>>> ArticleCache::ReadVersions(
    const std::vector<std::string>& names) {
  if (!versions_cross_slot_) {
    // One MGET of them all: one command however many shards a page spans.
    std::vector<std::string> cmd{"MGET"};
    cmd.insert(cmd.end(), names.begin(), names.end());
    auto r = co_await client_.Command(std::move(cmd));
    PL_CO_CHECK(r);
    if (!r->is_error() && r->elements.size() == names.size()) {
      co_return std::move(r->elements);
    }
    // Redis Cluster refuses keys of several slots in one command: from now on one GET per
    // key, pipelined (still one round trip; issue 29's cluster layer routes them by slot).
    if (!r->is_error() || !r->str.starts_with("CROSSSLOT")) {
      PL_CO_CHECK(ReplyOk(r));
      co_return Fail(ErrorCode::kInternal, "unexpected MGET reply");
    }
    versions_cross_slot_ = true;
  }
  std::vector<std::vector<std::string>> gets;
  gets.reserve(names.size());
  for (const auto& name : names) {
    gets.push_back({"GET", name});
  }
  auto r = co_await client_.Pipeline(std::move(gets));
  PL_CO_CHECK(AllOk(r));
  co_return std::move(*r);
}

Awaitable<Result<ListVersions>> ArticleCache::Versions(const std::vector<int64_t>& ids) {
  std::vector<int> shards;
  shards.reserve(ids.size());
  for (int64_t id : ids) {
    shards.push_back(keys::LikeShard(id));
  }
  std::sort(shards.begin(), shards.end());
  shards.erase(std::unique(shards.begin(), shards.end()), shards.end());
  std::vector<std::string> names{std::string(keys::kPublishedListsVersion)};
  names.reserve(1 + 2 * shards.size());
  for (int s : shards) {
    names.push_back(keys::ListVersion(s));
    names.push_back(keys::ListViewsVersion(s));
  }
  PL_CO_TRY(std::vector<Reply> values, co_await ReadVersions(names));
  // Unborn ones (after a FLUSHALL, or never raised yet) get a random base first, each in one
  // script call of its own slot; rare, so not batched further.
  std::vector<size_t> unborn;
  std::vector<Awaitable<Result<Reply>>> births;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!Unborn(values[i])) {
      continue;
    }
    unborn.push_back(i);
    std::vector<std::string> keys{names[i]};
    std::vector<std::string> args{NewVersionBase()};
    births.push_back(
        client_.Eval(GetScript("list_version_born.lua"), std::move(keys), std::move(args)));
  }
  if (!births.empty()) {
    auto born = co_await WhenAll(std::move(births));
    for (size_t j = 0; j < unborn.size(); ++j) {
      PL_CO_CHECK(ReplyOk(born[j]));
      values[unborn[j]] = std::move(*born[j]);
    }
  }
  ListVersions out;
  out.lists = std::move(values[0].str);
  for (size_t i = 0; i < shards.size(); ++i) {
    if (i > 0) {
      out.articles += '.', out.views += '.';
    }
    out.articles += values[1 + 2 * i].str;
    out.views += values[2 + 2 * i].str;
  }
  co_return out;
}

// Every primary's run_id, joined: a restart of any of them (it may come back older) changes it.
Awaitable<Result<std::string>> ArticleCache::ServerRunId() {
  std::string ids;
  for (const auto& node : client_.Primaries()) {
    std::vector<std::string> cmd{"INFO", "server"};
    auto r = co_await node->Command(std::move(cmd));
    PL_CO_CHECK(ReplyOk(r));
    constexpr std::string_view kField = "run_id:";
    const size_t at = r->str.find(kField);
    if (at == std::string::npos) {
      co_return Fail(ErrorCode::kInternal, "INFO server has no run_id");
    }
    const size_t from = at + kField.size();
    const size_t end = r->str.find_first_of("\r\n", from);
    if (!ids.empty()) {
      ids += ',';
    }
    ids += r->str.substr(from, end == std::string::npos ? std::string::npos : end - from);
  }
  if (ids.empty()) {
    co_return Fail(ErrorCode::kUnavailable, "redis: no primary known");
  }
  co_return ids;
}

}  // namespace plaudit::redis
