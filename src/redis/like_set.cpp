// LikeStore::Set: the like/unlike step (like_set.lua), and the queue that lets likes of one
// target share a call.
//
// Why a queue: a viral target takes likes from many users at once, and each like_set.lua
// call costs Redis ~72k instructions, most of them the call itself (parsing, the script's
// KEYS/ARGV tables, the AOF's MULTI/EXEC, the article's status, the count) rather than the
// user's own records. So while a call for a target is in flight, further likes of it that
// arrive in one loop turn go together in one call at the turn's end, which applies them in
// order as if one at a time and answers each (a target liked now and then pays nothing: its
// like finds no call in flight and goes at once). They do not wait for the call in flight to
// come back: that cost a round trip of latency to every like that found its target busy, a
// fifth of them under like_put_spread (p99 1.7 -> 2.2-3.5 ms). All the likes of a call share
// one target, so one hash slot.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <exception>

#include "common/time.hpp"
#include "redis/article_cache.hpp"  // ListMember
#include "redis/keys.hpp"
#include "redis/like_store.hpp"  // declares LikeStore::Set (like_*.cpp have the rest)
#include "redis/script.hpp"

namespace plaudit::redis {
namespace {

// One answer of like_set.lua: state + 2·big + 4·count, or 'miss' / 'unpublished'.
Result<LikeReading> ToReading(const Reply& r, bool* big) {
  if (r.type == Reply::Type::kInteger) {
    const int64_t low = ((r.integer % 4) + 4) % 4;  // a drifted count may be negative
    *big = (low & 2) != 0;
    return LikeReading{(low & 1) != 0 ? LikeOf::kYes : LikeOf::kNo, (r.integer - low) / 4};
  }
  if (r.str == "miss") {
    return LikeReading{LikeOf::kNotLoaded, std::nullopt};
  }
  if (r.str == "unpublished") {
    return LikeReading{LikeOf::kNotPublished, std::nullopt};
  }
  return Fail(ErrorCode::kInternal, "unexpected like reply");
}

const Script& LikeSetScript() {
  static const Script& script = GetScript("like_set.lua");  // not a map lookup a like
  return script;
}

}  // namespace

Awaitable<Result<LikeReading>> LikeStore::Set(const model::Target& t, int64_t user_id, bool like,
                                              const HotOrder* hot, bool require_published) {
  SetCall call;
  call.target = t;
  call.small = keys::LikeBucket(TargetShard(t), keys::Cat(TargetName(t), keys::kLikeSmallSetTail));
  char queue_kind = '\0';
  if (hot && t.is_comment()) {
    // The comment's hot index, its thread's meta and (hotpub) the article's and the
    // comment's hashes share the article's shard tag (keys::CommentsByLikes).
    call.kind = require_published ? (hot->parent_id ? "hotpubr" : "hotpub") : "hot";
    queue_kind = require_published ? 'q' : 'h';
    call.extra_keys.push_back(hot->parent_id ? keys::RepliesByLikes(*hot->parent_id)
                                             : keys::CommentsByLikes(hot->article_id));
    call.extra_keys.push_back(keys::CommentMeta(hot->article_id));
    if (require_published) {
      call.extra_keys.push_back(keys::Article(hot->article_id));
      call.extra_keys.push_back(keys::Comment(t.id));
      if (hot->parent_id) {
        call.extra_keys.push_back(keys::Comment(*hot->parent_id));
      }
    }
    call.hot_member = ListMember(t.id);
  } else if (require_published && !t.is_comment()) {
    // The article's cache hash shares the target's shard tag (keys::Article).
    call.kind = "pub";
    queue_kind = 'p';
    call.extra_keys.push_back(keys::Article(t.id));
  }
  const QueueKey queue{t.id, t.kind, queue_kind};
  // With --redis-wait-replicas: the connection the WAIT goes on must be the one the script
  // ran on (a reconnect, a new Sentinel primary or a slot's new owner moves this).
  const uint64_t generation = wait_replicas_ > 0 ? client_.stats().reconnects : 0;
  auto ex = co_await net::this_coro::executor;
  auto [it, idle] = queued_.try_emplace(queue);  // one lookup a like, found or made
  if (!idle) {
    // A call for this target is in flight: go with the others that arrive in this loop
    // turn, in one call at its end (no wait for the call in flight to come back).
    Queue& q = it->second;
    if (!q.flush_posted) {
      q.flush_posted = true;
      net::post(ex, [this, queue, call, ex]() mutable { SendQueued(queue, std::move(call), ex); });
    }
    Result<LikeReading> queued =
        co_await net::async_initiate<const net::use_awaitable_t<>, void(Result<LikeReading>)>(
            [&q, user_id, like](auto handler) {
              q.waiting.push_back(QueuedLike{user_id, like, std::move(handler)});
            },
            net::use_awaitable);
    if (wait_replicas_ > 0 && queued && queued->Complete()) {
      auto replicated = Replicated(std::move(call.small), generation, *queued);
      co_return co_await std::move(replicated);
    }
    co_return queued;
  }
  it->second.in_flight = 1;
  // The script is awaited here, not through SendSet: a nested coroutine frame per like.
  const std::pair<int64_t, bool> one[1] = {{user_id, like}};
  std::vector<std::string> keys;
  std::vector<std::string> args;
  SetArguments(call, one, keys, args);
  Result<Reply> r = Fail(ErrorCode::kInternal, "like not sent");
  try {
    r = co_await client_.Eval(LikeSetScript(), std::move(keys), std::move(args));
  } catch (...) {
    Answered(queue);
    throw;
  }
  Answered(queue);
  PL_CO_TRY(auto readings, ReadSet(call, 1, r));
  // A miss or a refusal wrote nothing: only an answer that is the like's needs the replicas.
  if (wait_replicas_ > 0 && readings.front().Complete()) {
    auto replicated = Replicated(std::move(call.small), generation, readings.front());
    co_return co_await std::move(replicated);
  }
  co_return readings.front();
}

Awaitable<Result<LikeReading>> LikeStore::Replicated(std::string key, uint64_t generation,
                                                     LikeReading reading) {
  auto wait = client_.WaitReplicas(key, wait_replicas_, wait_timeout_);
  Result<int64_t> acked = co_await std::move(wait);
  PL_CO_CHECK(acked);
  if (client_.stats().reconnects != generation) {
    co_return Fail(ErrorCode::kUnavailable,
                   "redis: the connection changed between the like and its WAIT, so its "
                   "replication is unknown; retry");
  }
  if (*acked < wait_replicas_) {
    std::string why = "redis: " + std::to_string(*acked) + " of the " +
                      std::to_string(wait_replicas_) + " replicas required acknowledged the like";
    why += " within " + std::to_string(wait_timeout_.count()) + " ms; it may not survive a ";
    why += "failover; retry";
    co_return Fail(ErrorCode::kUnavailable, std::move(why));
  }
  co_return reading;
}

void LikeStore::Answered(const QueueKey& queue) {
  auto it = queued_.find(queue);
  if (it == queued_.end()) {
    return;
  }
  Queue& q = it->second;
  if (--q.in_flight <= 0 && !q.flush_posted && q.waiting.empty()) {
    queued_.erase(it);
  }
}

void LikeStore::SendQueued(const QueueKey& queue, SetCall call, const net::any_io_executor& ex) {
  auto it = queued_.find(queue);
  if (it == queued_.end()) {
    return;
  }
  Queue& q = it->second;
  q.flush_posted = false;
  std::vector<QueuedLike> batch = std::move(q.waiting);
  q.waiting.clear();
  if (batch.empty()) {
    if (q.in_flight <= 0) {
      queued_.erase(it);
    }
    return;
  }
  ++q.in_flight;
  net::co_spawn(ex, SendBatch(queue, std::move(call), std::move(batch), ex), net::detached);
}

Awaitable<void> LikeStore::SendBatch(QueueKey queue, SetCall call, std::vector<QueuedLike> batch,
                                     net::any_io_executor ex) {
  Likes likes;
  likes.reserve(batch.size());
  for (const auto& q : batch) {
    likes.emplace_back(q.user_id, q.like);
  }
  Result<std::vector<LikeReading>> readings = Fail(ErrorCode::kInternal, "likes not sent");
  try {
    readings = co_await SendSet(call, likes);
  } catch (const std::exception& e) {
    readings = Fail(ErrorCode::kInternal, e.what());  // answered below like any failure
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    Result<LikeReading> r = readings ? Result<LikeReading>((*readings)[i])
                                     : Result<LikeReading>(tl::unexpected(readings.error()));
    // Posted, never called here: each waiter resumes on its own turn.
    net::post(ex, [h = std::move(batch[i].done), r = std::move(r)]() mutable {
      std::move(h)(std::move(r));
    });
  }
  Answered(queue);
}

void LikeStore::SetArguments(const SetCall& call, LikeSpan likes, std::vector<std::string>& keys,
                             std::vector<std::string>& args) {
  // like_set.lua builds every other key of the target from the small set's (one argument
  // each costs Redis more than a concatenation there; see the script's header).
  keys.reserve(1 + call.extra_keys.size());
  keys.push_back(call.small);
  keys.insert(keys.end(), call.extra_keys.begin(), call.extra_keys.end());
  args.reserve(4 + 3 * likes.size());
  args.push_back(std::to_string(NowMs()));
  args.push_back(hints_.Big(call.target) ? "big" : "s");
  args.push_back(call.kind);
  for (const auto& [user_id, like] : likes) {
    args.push_back(std::to_string(user_id));
    args.push_back(like ? "1" : "0");
    args.push_back(std::to_string(LikeBucketOf(user_id)));
  }
  if (!call.hot_member.empty()) {
    args.push_back(call.hot_member);
  }
}

Result<std::vector<LikeReading>> LikeStore::ReadSet(const SetCall& call, size_t likes,
                                                    const Result<Reply>& r) {
  // Whatever the answer: a call whose reply was lost may still have run.
  touched_.Add(keys::LikeShard(call.target.id));
  PL_CHECK(ReplyOk(r));
  std::vector<LikeReading> out;
  out.reserve(likes);
  bool big = false;
  bool seen = false;
  auto add = [&](const Reply& one) -> Status {
    bool b = false;
    PL_TRY(auto reading, ToReading(one, &b));
    if (reading.Known()) {
      big = b;
      seen = true;
    }
    out.push_back(reading);
    return {};
  };
  if (r->type == Reply::Type::kArray) {
    if (r->elements.size() != likes) {
      return Fail(ErrorCode::kInternal, "unexpected like reply");
    }
    for (const auto& e : r->elements) {
      PL_CHECK(add(e));
    }
  } else {
    // One like's answer, or one for all of them ('miss' of the count, 'unpublished').
    PL_CHECK(add(*r));
    if (likes > 1 && out.front().Known()) {
      return Fail(ErrorCode::kInternal, "unexpected like reply");
    }
    const LikeReading all = out.front();
    out.assign(likes, all);
  }
  if (seen) {
    hints_.Record(call.target, big);
  }
  return out;
}

Awaitable<Result<std::vector<LikeReading>>> LikeStore::SendSet(const SetCall& call,
                                                               LikeSpan likes) {
  std::vector<std::string> keys;
  std::vector<std::string> args;
  SetArguments(call, likes, keys, args);
  auto r = co_await client_.Eval(LikeSetScript(), std::move(keys), std::move(args));
  co_return ReadSet(call, likes.size(), r);
}

}  // namespace plaudit::redis
