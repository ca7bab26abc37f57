#include "redis/cache_marks.hpp"

#include <charconv>

#include "common/when_all.hpp"
#include "redis/client/reply.hpp"
#include "redis/keys.hpp"
#include "redis/script.hpp"

namespace plaudit::redis {
namespace {

std::string TargetName(const CacheTarget& t) { return t.kind + std::to_string(t.id); }

// "<kind><id>:<seq>" → the mark; nullopt for anything else (left alone).
std::optional<CacheMark> ParseMember(int shard, const std::string& member) {
  if (member.size() < 4 || (member[0] != 'a' && member[0] != 'c')) {
    return std::nullopt;
  }
  const auto colon = member.find(':');
  if (colon == std::string::npos) {
    return std::nullopt;
  }
  CacheMark m;
  m.target.kind = member[0];
  m.shard = shard;
  m.member = member;
  const char* first = member.data() + 1;
  const char* mid = member.data() + colon;
  const char* last = member.data() + member.size();
  if (std::from_chars(first, mid, m.target.id).ptr != mid || m.target.id <= 0) {
    return std::nullopt;
  }
  if (std::from_chars(mid + 1, last, m.seq).ptr != last) {
    return std::nullopt;
  }
  return m;
}

}  // namespace

Awaitable<Result<std::optional<CacheMark>>> CacheMarks::Mark(CacheTarget target) {
  const int shard = keys::LikeShard(target.id);
  std::vector<std::string> keys{keys::LikeSeq(shard), keys::CacheMarks(shard),
                                keys::LikeBirthMark(shard), keys::LikeRecoveryMark(shard)};
  std::vector<std::string> args{TargetName(target),
                                std::to_string(high_[static_cast<size_t>(shard)])};
  auto r = co_await client_.Eval(GetScript("cache_mark.lua"), std::move(keys), std::move(args));
  touched_.Add(shard);  // whatever the answer: a lost reply's script may have run
  PL_CO_CHECK(ReplyOk(r));
  if (r->type != Reply::Type::kInteger) {
    co_return std::optional<CacheMark>{};  // 'unchecked'
  }
  int64_t& high = high_[static_cast<size_t>(shard)];
  high = std::max(high, r->integer);
  CacheMark m;
  m.target = target;
  m.shard = shard;
  m.seq = r->integer;
  m.member = TargetName(target) + ":" + std::to_string(m.seq);
  co_return std::optional<CacheMark>(std::move(m));
}

Awaitable<Status> CacheMarks::Unmark(const CacheMark& mark) {
  std::vector<std::string> cmd{"ZREM", keys::CacheMarks(mark.shard), mark.member};
  co_return ReplyOk(co_await client_.Command(std::move(cmd)));
}

Awaitable<Result<std::vector<CacheMark>>> CacheMarks::In(ShardSet shards) {
  std::vector<CacheMark> out;
  const std::vector<int> list = shards.List();
  if (list.empty()) {
    co_return out;
  }
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(list.size());
  for (int s : list) {
    cmds.push_back({"ZRANGE", keys::CacheMarks(s), "0", std::to_string(kReadPerShard - 1)});
  }
  auto r = co_await client_.Pipeline(std::move(cmds));
  PL_CO_CHECK(AllOk(r));
  for (size_t i = 0; i < list.size(); ++i) {
    for (const auto& member : (*r)[i].elements) {
      if (auto m = ParseMember(list[i], member.str)) {
        out.push_back(std::move(*m));
      }
    }
  }
  if (out.empty()) {
    co_return out;  // the usual answer: no TIME for it
  }
  // Redis's clock, after the read: an age is at most a round trip too high, and only
  // decides when a settled mark is old enough to repair.
  std::vector<std::string> time{"TIME"};
  auto now = co_await client_.Command(std::move(time));
  PL_CO_CHECK(ReplyOk(now));
  if (now->elements.size() != 2) {
    co_return Fail(ErrorCode::kInternal, "unexpected TIME reply");
  }
  const int64_t now_us =
      std::stoll(now->elements[0].str) * 1'000'000 + std::stoll(now->elements[1].str);
  for (auto& m : out) {
    m.age_us = now_us - m.seq;
  }
  co_return out;
}

}  // namespace plaudit::redis
