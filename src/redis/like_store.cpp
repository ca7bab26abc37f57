#include "redis/like_store.hpp"

#include <algorithm>

#include "common/time.hpp"
#include "common/when_all.hpp"
#include "redis/client/scan.hpp"
#include "redis/fields.hpp"
#include "redis/keys.hpp"
#include "redis/script.hpp"

namespace plaudit::redis {
namespace {

std::string Member(const model::Target& t, int64_t bucket) {
  return keys::Cat(TargetName(t), ":", keys::Num(bucket));
}
// The member of a target's small-mode records (one set for every liker; see like_set.lua).
std::string SmallMember(const model::Target& t) {
  return keys::Cat(TargetName(t), keys::kLikeSmallSetTail);
}

}  // namespace

uint64_t LikeModeHints::Tag(const model::Target& t) {
  // Fibonacci hashing: the top bits pick the slot; | 1 keeps a used slot non-zero.
  const uint64_t key = (static_cast<uint64_t>(t.id) << 1) | (t.is_comment() ? 1 : 0);
  return (key * 0x9E3779B97F4A7C15ULL) | 1;
}

bool LikeModeHints::Big(const model::Target& t) const {
  const uint64_t tag = Tag(t);
  return slots_[tag >> (64 - kSlotBits)] == tag;
}

void LikeModeHints::Record(const model::Target& t, bool big) {
  const uint64_t tag = Tag(t);
  uint64_t& slot = slots_[tag >> (64 - kSlotBits)];
  if (big) {
    slot = tag;
  } else if (slot == tag) {
    slot = 0;
  }
}

int TargetShard(const model::Target& t) { return keys::LikeShard(t.id); }
std::string TargetName(const model::Target& t) {
  return keys::Cat(t.is_comment() ? "c" : "a", keys::Num(t.id));
}
int64_t LikeBucketOf(int64_t user_id) { return user_id >> keys::kLikeBucketShift; }
std::pair<int64_t, int64_t> LikeBucketUsers(int64_t bucket) {
  return {bucket << keys::kLikeBucketShift, ((bucket + 1) << keys::kLikeBucketShift) - 1};
}

Awaitable<Result<IdFrontier>> LikeStore::ReadIdFrontier(const std::vector<int>& shards) {
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(1 + 3 * shards.size());
  cmds.push_back({"GET", std::string(keys::kCommentSeq)});
  for (int shard : shards) {
    cmds.push_back({"GET", keys::LikeBirthMark(shard)});
    cmds.push_back({"GET", keys::LikeSeq(shard)});
    cmds.push_back({"ZCARD", keys::CacheMarks(shard)});
  }
  auto r = co_await client_.Pipeline(std::move(cmds));
  if (auto st = AllOk(r); !st) {
    co_return tl::unexpected(st.error());
  }
  if (r->size() != 1 + 3 * shards.size()) {
    co_return Fail(ErrorCode::kInternal, "unexpected reply");
  }
  auto number = [](const Reply& x) -> std::optional<int64_t> {
    return x.is_nil() ? std::nullopt : x.AsInt();
  };
  IdFrontier out;
  out.comment_seq = number((*r)[0]);
  out.shards.reserve(shards.size());
  for (size_t i = 0; i < shards.size(); ++i) {
    const Reply& marks = (*r)[3 + 3 * i];
    out.shards.push_back({number((*r)[1 + 3 * i]), number((*r)[2 + 3 * i]), marks.integer != 0});
  }
  co_return out;
}

Awaitable<Result<LikeReading>> LikeStore::Get(const model::Target& t, int64_t user_id) {
  const std::vector<model::Target> one{t};
  auto r = co_await GetMany(one, user_id);
  if (!r) {
    co_return tl::unexpected(r.error());
  }
  co_return r->front();
}

Awaitable<Result<std::vector<LikeReading>>> LikeStore::GetMany(
    const std::vector<model::Target>& targets, int64_t user_id, bool counts) {
  const int first_shard = targets.empty() ? 0 : TargetShard(targets.front());
  const bool one_shard = targets.size() > 1 &&
                         std::all_of(targets.begin(), targets.end(), [&](const model::Target& t) {
                           return TargetShard(t) == first_shard;
                         });
  if (user_id == 0 && !counts) {
    co_return std::vector<LikeReading>(targets.size(), LikeReading{LikeOf::kNo, std::nullopt});
  }
  if (user_id == 0) {
    // Anonymous: only the counts. One shard (a comment page, whose comments share their
    // article's shard): one MGET, where like_get.lua took four keys per comment (320 for a
    // 20 × 3 page) to read the same counts. Across shards (an article list): a plain GET
    // each in one pipeline, since MGET must stay in one hash slot (a script call per shard
    // cost Redis several times more, and plauditd a request each).
    std::vector<LikeReading> out(targets.size());
    if (targets.empty()) {
      co_return out;
    }
    std::vector<Reply> counts;
    if (one_shard) {
      std::vector<std::string> mget;
      mget.reserve(1 + targets.size());
      mget.push_back("MGET");
      for (const model::Target& t : targets) {
        mget.push_back(keys::LikeCount(first_shard, TargetName(t)));
      }
      auto r = co_await client_.Command(std::move(mget));
      if (auto st = ReplyOk(r); !st) {
        co_return tl::unexpected(st.error());
      }
      if (r->elements.size() != targets.size()) {
        co_return Fail(ErrorCode::kInternal, "unexpected MGET reply");
      }
      counts = std::move(r->elements);
    } else {
      std::vector<std::vector<std::string>> gets;
      gets.reserve(targets.size());
      for (const model::Target& t : targets) {
        gets.push_back({"GET", keys::LikeCount(TargetShard(t), TargetName(t))});
      }
      auto r = co_await client_.Pipeline(std::move(gets));
      if (auto st = AllOk(r); !st) {
        co_return tl::unexpected(st.error());
      }
      counts = std::move(*r);
    }
    for (size_t i = 0; i < targets.size(); ++i) {
      const Reply& c = counts[i];
      std::optional<int64_t> n = c.is_nil() ? std::nullopt : c.AsInt();
      if (!c.is_nil() && !n) {
        co_return Fail(ErrorCode::kInternal, "corrupt like count");
      }
      out[i] = LikeReading{LikeOf::kNo, n};
    }
    co_return out;
  }
  if (one_shard) {
    // A comment page (its comments share the article's shard): one like_get.lua call reads
    // every state atomically, instead of three commands per comment; one key per comment
    // (the script builds the other two).
    std::vector<std::string> keys;
    keys.reserve(targets.size());
    for (const model::Target& t : targets) {
      keys.push_back(keys::LikeBucket(first_shard, SmallMember(t)));
    }
    std::vector<std::string> args{std::to_string(user_id), std::to_string(LikeBucketOf(user_id)),
                                  counts ? "1" : "0", std::to_string(targets.size())};
    auto r = co_await client_.Eval(GetScript("like_get.lua"), std::move(keys), std::move(args));
    if (auto st = ReplyOk(r); !st) {
      co_return tl::unexpected(st.error());
    }
    const auto& e = r->elements;
    const size_t per = counts ? 2 : 1;
    if (e.size() != per * targets.size()) {
      co_return Fail(ErrorCode::kInternal, "unexpected like reply");
    }
    std::vector<LikeReading> out(targets.size());
    // like_get.lua: state 1/0, -1 not loaded; count -2 not loaded.
    for (size_t j = 0; j < targets.size(); ++j) {
      const int64_t state = e[per * j].integer;
      const int64_t count = counts ? e[per * j + 1].integer : -2;
      out[j] = LikeReading{state == 1   ? LikeOf::kYes
                           : state == 0 ? LikeOf::kNo
                                        : LikeOf::kNotLoaded,
                           count == -2 ? std::nullopt : std::optional<int64_t>(count)};
    }
    co_return out;
  }
  // Targets across shards (an article list, one target per shard), or a single one: three
  // plain commands per target in one pipeline (one round trip; a script call per shard cost
  // Redis several times more, and plauditd a request each). They are not one snapshot: a
  // like or a split may land between them, so each value is one that held a moment apart, as
  // with two separate requests; a set seen as not loaded is a miss (load, read again).
  const std::string uid = std::to_string(user_id);
  // No EXISTS of the big-mode mark: as in like_set.lua, a bucket holding 0 implies it (a
  // bucket is only ever created with the mark), and the small set is asked first.
  const size_t per = counts ? 3 : 2;
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(per * targets.size());
  for (const model::Target& t : targets) {
    const int s = TargetShard(t);
    cmds.push_back({"SMISMEMBER", keys::LikeBucket(s, SmallMember(t)), uid, "0"});
    cmds.push_back({"SMISMEMBER", keys::LikeBucket(s, Member(t, LikeBucketOf(user_id))), uid, "0"});
    if (counts) {
      cmds.push_back({"GET", keys::LikeCount(s, TargetName(t))});
    }
  }
  std::vector<LikeReading> out(targets.size());
  if (cmds.empty()) {
    co_return out;
  }
  auto replies = co_await client_.Pipeline(std::move(cmds));
  if (auto st = AllOk(replies); !st) {
    co_return tl::unexpected(st.error());
  }
  // SMISMEMBER answers {uid is a member, 0 (the loaded mark) is a member}.
  auto flags = [](const Reply& r, bool* member, bool* loaded) {
    if (r.elements.size() != 2) {
      return false;
    }
    *member = r.elements[0].integer == 1;
    *loaded = r.elements[1].integer == 1;
    return true;
  };
  for (size_t i = 0; i < targets.size(); ++i) {
    const Reply* r = &(*replies)[per * i];
    bool small_has = false, small_loaded = false, bucket_has = false, bucket_loaded = false;
    if (!flags(r[0], &small_has, &small_loaded) || !flags(r[1], &bucket_has, &bucket_loaded)) {
      co_return Fail(ErrorCode::kInternal, "unexpected like reply");
    }
    LikeOf state = LikeOf::kNotLoaded;
    if (small_loaded) {
      state = small_has ? LikeOf::kYes : LikeOf::kNo;
    } else if (bucket_loaded) {
      state = bucket_has ? LikeOf::kYes : LikeOf::kNo;
    }
    std::optional<int64_t> n;
    if (counts) {
      n = r[2].is_nil() ? std::nullopt : r[2].AsInt();
      if (!r[2].is_nil() && !n) {
        co_return Fail(ErrorCode::kInternal, "corrupt like count");
      }
    }
    out[i] = LikeReading{state, n};
  }
  co_return out;
}

Awaitable<Result<LikeStore::Unflushed>> LikeStore::ReadUnflushed(const model::Target& t,
                                                                 bool changes) {
  const int s = TargetShard(t);
  std::vector<std::string> keys{keys::LikeBucket(s, SmallMember(t)), keys::LikeDirty(s),
                                keys::LikeInFlightSet(s), keys::LikeEpoch(s)};
  std::vector<std::string> args{changes ? "1" : "0"};
  auto r = co_await client_.Eval(GetScript("like_unflushed.lua"), std::move(keys), std::move(args));
  if (auto st = ReplyOk(r); !st) {
    co_return tl::unexpected(st.error());
  }
  const auto& e = r->elements;
  if (e.empty() || e.size() % 2 != 1) {
    co_return Fail(ErrorCode::kInternal, "unexpected like reply");
  }
  Unflushed out;
  out.epoch = e[0].str;
  for (size_t i = 1; i + 1 < e.size(); i += 2) {
    auto uid = e[i].AsInt();
    if (!uid) {
      co_return Fail(ErrorCode::kInternal, "corrupt pending like");
    }
    out.changes.emplace_back(*uid, e[i + 1].str == "1");
  }
  co_return out;
}

Awaitable<Result<LikeStore::CachedCount>> LikeStore::ReadCachedCount(const model::Target& t) {
  const int s = TargetShard(t);
  std::vector<std::string> keys{keys::LikeBucket(s, SmallMember(t)), keys::LikeDirty(s),
                                keys::LikeInFlightSet(s), keys::LikeEpoch(s)};
  std::vector<std::string> args{"1", "1"};
  auto r = co_await client_.Eval(GetScript("like_unflushed.lua"), std::move(keys), std::move(args));
  if (auto st = ReplyOk(r); !st) {
    co_return tl::unexpected(st.error());
  }
  const auto& e = r->elements;
  if (e.size() < 2 || e.size() % 2 != 0) {
    co_return Fail(ErrorCode::kInternal, "unexpected like reply");
  }
  CachedCount out;
  out.unflushed.epoch = e[0].str;
  if (!e[1].is_nil()) {
    out.count = e[1].AsInt();
    if (!out.count) {
      co_return Fail(ErrorCode::kInternal, "corrupt like count");
    }
  }
  for (size_t i = 2; i + 1 < e.size(); i += 2) {
    auto uid = e[i].AsInt();
    if (!uid) {
      co_return Fail(ErrorCode::kInternal, "corrupt pending like");
    }
    out.unflushed.changes.emplace_back(*uid, e[i + 1].str == "1");
  }
  co_return out;
}

Awaitable<Status> LikeStore::ScanCachedCounts(
    std::function<Awaitable<Status>(std::vector<model::Target>)> each) {
  // pl:lc:{l<shard>}:<type><id>
  std::function<Awaitable<Status>(std::vector<std::string>)> parse =
      [&each](std::vector<std::string> found) -> Awaitable<Status> {
    std::vector<model::Target> targets;
    for (const std::string& key : found) {
      const int shard = keys::CachedShardOf(key);
      const auto close = key.find("}:");
      if (shard < 0 || close == std::string::npos || close + 3 >= key.size()) {
        continue;
      }
      const char type = key[close + 2];
      const int64_t id = ParseIntOr(std::string_view(key).substr(close + 3), -1);
      if ((type != 'a' && type != 'c') || id < 0) {
        continue;
      }
      const model::Target t = type == 'c' ? model::Target::Comment(id) : model::Target::Article(id);
      if (TargetShard(t) == shard && keys::LikeCount(shard, TargetName(t)) == key) {
        targets.push_back(t);
      }
    }
    if (targets.empty()) {
      co_return Status{};
    }
    co_return co_await each(std::move(targets));
  };
  co_return co_await ScanKeys(client_, std::string(keys::kLikeCountPrefix) + "*", std::move(parse));
}

Awaitable<Result<LikeStore::LoadOutcome>> LikeStore::Load(const model::Target& t, int64_t user_id,
                                                          const std::optional<LikerLoad>& likers,
                                                          std::optional<int64_t> count,
                                                          const std::string& epoch) {
  const int s = TargetShard(t);
  const std::string small = SmallMember(t);
  const int64_t b = LikeBucketOf(user_id);
  const std::string bucket = Member(t, b);
  std::vector<std::string> keys{keys::LikeBucket(s, small),   keys::LikeBig(s, TargetName(t)),
                                keys::LikeBucket(s, bucket),  keys::LikeCount(s, TargetName(t)),
                                keys::LikePending(s, small),  keys::LikeInFlight(s, small),
                                keys::LikePending(s, bucket), keys::LikeInFlight(s, bucket),
                                keys::LikeEpoch(s),           keys::LikeBirthMark(s)};
  std::string mode;
  if (likers) {
    mode = likers->all ? "small" : "big";
  }
  std::vector<std::string> args{mode, count ? std::to_string(*count) : "",
                                std::to_string(b << keys::kLikeBucketShift),
                                std::to_string(((b + 1) << keys::kLikeBucketShift) - 1), epoch};
  if (likers) {
    for (int64_t uid : likers->user_ids) {
      args.push_back(std::to_string(uid));
    }
  }
  auto r = co_await client_.Eval(GetScript("like_load.lua"), std::move(keys), std::move(args));
  if (auto st = ReplyOk(r); !st) {
    co_return tl::unexpected(st.error());
  }
  if (r->str == "retry") {
    co_return LoadOutcome::kRetry;
  }
  if (r->str == "unchecked") {
    co_return LoadOutcome::kUnchecked;
  }
  co_return LoadOutcome::kInstalled;
}

Awaitable<Status> LikeStore::DropCount(const model::Target& t) {
  std::vector<std::string> keys{keys::LikeCount(TargetShard(t), TargetName(t)),
                                keys::LikeEpoch(TargetShard(t))};
  std::vector<std::string> args;  // named: no braced list inside co_await (GCC 12)
  co_return ReplyOk(
      co_await client_.Eval(GetScript("like_forget.lua"), std::move(keys), std::move(args)));
}

Awaitable<Result<std::vector<LikeShardStat>>> LikeStore::Stats() {
  std::vector<std::vector<std::string>> cmds;
  for (int s = 0; s < keys::kLikeShards; ++s) {
    cmds.push_back({"ZCARD", keys::LikeDirty(s)});
    cmds.push_back({"SCARD", keys::LikeInFlightSet(s)});
    cmds.push_back({"ZRANGE", keys::LikeDirty(s), "0", "0", "WITHSCORES"});
  }
  auto r = co_await client_.Pipeline(std::move(cmds));
  if (!r) {
    co_return tl::unexpected(r.error());
  }
  std::vector<LikeShardStat> out;
  for (int s = 0; s < keys::kLikeShards; ++s) {
    const size_t base = 3 * static_cast<size_t>(s);
    const auto& zcard = (*r)[base];
    const auto& scard = (*r)[base + 1];
    const auto& oldest = (*r)[base + 2];
    if (zcard.is_error() || scard.is_error() || oldest.is_error()) {
      co_return Fail(ErrorCode::kInternal, "redis: like shard stats failed");
    }
    LikeShardStat st{s, zcard.integer, scard.integer, std::nullopt};
    if (oldest.elements.size() == 2) {
      st.oldest_ms = static_cast<int64_t>(std::stod(oldest.elements[1].str));
    }
    out.push_back(st);
  }
  co_return out;
}

Awaitable<Result<LikeStore::ShardMembers>> LikeStore::Members(int shard, int64_t max) {
  std::vector<std::vector<std::string>> cmds;
  cmds.push_back({"SRANDMEMBER", keys::LikeInFlightSet(shard), std::to_string(max)});
  cmds.push_back({"ZRANGE", keys::LikeDirty(shard), "0", std::to_string(max - 1)});
  auto r = co_await client_.Pipeline(std::move(cmds));
  if (auto st = AllOk(r); !st) {
    co_return tl::unexpected(st.error());
  }
  ShardMembers out;
  for (auto& e : (*r)[0].elements) {
    out.in_flight.push_back(std::move(e.str));
  }
  for (auto& e : (*r)[1].elements) {
    out.dirty.push_back(std::move(e.str));
  }
  co_return out;
}

Awaitable<Result<std::vector<ClaimedBucket>>> LikeStore::Claim(
    int shard, const std::vector<std::string>& members) {
  std::vector<std::string> keys{keys::LikeDirty(shard), keys::LikeInFlightSet(shard),
                                keys::LikeSeq(shard)};
  for (const auto& m : members) {
    keys.push_back(keys::LikePending(shard, m));
    keys.push_back(keys::LikeInFlight(shard, m));
  }
  std::vector<std::string> args(members.begin(), members.end());
  auto r = co_await client_.Eval(GetScript("like_claim.lua"), std::move(keys), std::move(args));
  if (auto st = ReplyOk(r); !st) {
    co_return tl::unexpected(st.error());
  }
  std::vector<ClaimedBucket> out;
  for (auto& item : r->elements) {
    if (item.elements.size() != 2) {
      co_return Fail(ErrorCode::kInternal, "unexpected claim reply");
    }
    auto& kv = item.elements[1].elements;
    std::vector<std::pair<std::string, std::string>> fields;
    fields.reserve(kv.size() / 2);
    for (size_t i = 0; i + 1 < kv.size(); i += 2) {
      fields.emplace_back(std::move(kv[i].str), std::move(kv[i + 1].str));
    }
    PL_CO_TRY(auto bucket, DecodeClaim(std::move(item.elements[0].str), fields));
    out.push_back(std::move(bucket));
  }
  co_return out;
}

Result<ClaimedBucket> LikeStore::DecodeClaim(
    std::string member, const std::vector<std::pair<std::string, std::string>>& fields) {
  // "<type><id>:<bucket>", the bucket "s" for the small-mode set (keys::LikeBucket's names).
  const auto colon = member.rfind(':');
  if (colon == std::string::npos || colon < 2) {
    return Fail(ErrorCode::kInternal, "unexpected claimed bucket " + member);
  }
  ClaimedBucket b;
  b.type = member[0];
  b.target_id = ParseIntOr(std::string_view(member).substr(1, colon - 1), 0);
  b.small = std::string_view(member).substr(colon + 1) == "s";
  for (const auto& [field, value] : fields) {
    if (field == "#") {
      b.seq = ParseIntOr(value, 0);
      continue;
    }
    ClaimedChange ch;
    ch.user_id = ParseIntOr(field, 0);
    const auto sep = value.find(':');
    ch.liked = std::string_view(value).substr(0, sep) == "1";
    if (sep != std::string::npos) {
      ch.seq = ParseIntOr(std::string_view(value).substr(sep + 1), 0);
    }
    b.changes.push_back(ch);
  }
  b.member = std::move(member);
  return b;
}

Awaitable<Status> LikeStore::Done(int shard, const std::vector<ClaimedBucket>& claimed) {
  std::vector<std::string> keys{keys::LikeInFlightSet(shard), keys::LikeEpoch(shard)};
  std::vector<std::string> args;
  for (const auto& b : claimed) {
    keys.push_back(keys::LikeInFlight(shard, b.member));
    args.push_back(b.member);
    args.push_back(b.seq ? std::to_string(*b.seq) : std::string());
  }
  co_return ReplyOk(
      co_await client_.Eval(GetScript("like_done.lua"), std::move(keys), std::move(args)));
}

Awaitable<Result<std::vector<int>>> LikeStore::CheckShards(const std::vector<int64_t>& sql_seqs) {
  std::vector<Awaitable<Result<Reply>>> calls;
  for (int s = 0; s < keys::kLikeShards; ++s) {
    std::vector<std::string> keys{keys::LikeSeq(s),          keys::LikeDirty(s),
                                  keys::LikeInFlightSet(s),  keys::LikeEpoch(s),
                                  keys::LikeRecoveryMark(s), keys::LikeBirthMark(s)};
    const int64_t sql =
        static_cast<size_t>(s) < sql_seqs.size() ? sql_seqs[static_cast<size_t>(s)] : 0;
    std::vector<std::string> args{std::to_string(sql)};
    calls.push_back(client_.Eval(GetScript("like_recover.lua"), std::move(keys), std::move(args)));
  }
  auto replies = co_await WhenAll(std::move(calls));  // one round trip
  std::vector<int> out;
  for (int s = 0; s < keys::kLikeShards; ++s) {
    const auto& r = replies[static_cast<size_t>(s)];
    if (auto st = ReplyOk(r); !st) {
      co_return tl::unexpected(st.error());
    }
    if (r->integer == 1) {
      out.push_back(s);
    }
  }
  co_return out;
}

Awaitable<Status> LikeStore::FinishRecovery(const std::vector<int>& shards) {
  if (shards.empty()) {
    co_return Status{};
  }
  std::vector<bool> recovering(keys::kLikeShards, false);
  for (int s : shards) {
    recovering[static_cast<size_t>(s)] = true;
  }
  std::function<bool(std::string_view)> cached = [&recovering](std::string_view key) {
    const int s = keys::CachedShardOf(key);
    return s >= 0 && recovering[static_cast<size_t>(s)];
  };
  if (auto st = co_await UnlinkMatching(client_, "pl:*", std::move(cached)); !st) {
    co_return st;
  }
  // The published lists may name articles whose state the older Redis had: rebuilt on read.
  std::vector<std::vector<std::string>> lists;
  for (std::string_view list : {"all", "article", "post"}) {
    lists.push_back({"UNLINK", keys::PublishedList(list)});
  }
  // With their version (born again anew); the shards' own went with their caches above.
  lists.push_back({"UNLINK", std::string(keys::kPublishedListsVersion)});
  if (auto st = AllOk(co_await client_.Pipeline(std::move(lists))); !st) {
    co_return st;
  }
  std::vector<Awaitable<Result<Reply>>> clears;
  for (int s : shards) {
    std::vector<std::string> keys{keys::LikeRecoveryMark(s), keys::LikeEpoch(s)};
    std::vector<std::string> args;
    clears.push_back(client_.Eval(GetScript("like_forget.lua"), std::move(keys), std::move(args)));
  }
  auto cleared = co_await WhenAll(std::move(clears));
  for (const auto& r : cleared) {
    if (auto st = ReplyOk(r); !st) {
      co_return st;
    }
  }
  co_return Status{};
}

}  // namespace plaudit::redis
