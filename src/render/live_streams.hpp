#pragma once
// Live updates to readers (API.md "Live updates"): this instance's open event streams, by
// thread, fed by every instance's announcements (domain/live_feed.hpp).
//
// An announcement names a comment and what happened to it. For `comment` and
// `comment_updated` this instance reads the comment as an anonymous reader would (the same
// CommentService::Get as GET /comments/{id}), once per event whatever the number of streams,
// and sends what that read gives; a read that finds nothing (a held comment, one under a held
// top-level comment) sends nothing. So a stream shows exactly what a page read would, and
// nothing pending or spam is ever sent. `comment_deleted` carries the id only. `likes`
// carries the anonymous counts of the article and of those named comments anonymous readers
// see, read when the event is worked through (LiveFeed publishes at most one a second).
//
// Order and loss: each thread's events carry its sequence number (from Redis, gapless); a
// thread's events are read and sent one after the other, in that order. A number skipped (a
// message lost while the subscription was down), a number gone back (Redis emptied or
// restored) or the subscription coming back sends `reset` to the thread's streams: the widget
// reloads the thread. Every event has `id: <seq>`; a reconnect with Last-Event-ID is sent what
// this instance kept of the thread since (events of the last five minutes, at most
// kept_events), or `reset` when it did not keep them all.
//
// Cost: an idle stream costs no Redis command (one subscription per instance carries every
// thread); a heartbeat comment line every `heartbeat`; a thread is watched (its events read)
// while it has streams and `keep` after its last one went. Bounded: `max_streams` per
// instance (503 beyond), `per_address` per client address (429), and each stream's unsent
// bytes (a reader that stops reading is closed, and reconnects with its Last-Event-ID).
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/net.hpp"
#include "common/result.hpp"
#include "domain/comments.hpp"
#include "domain/likes.hpp"
#include "domain/live_feed.hpp"
#include "http/event_stream.hpp"

namespace plaudit::render {

struct LiveLimits {
  size_t max_streams = 10000;
  size_t per_address = 8;
  std::chrono::milliseconds heartbeat{25'000};
  std::chrono::milliseconds keep{5 * 60'000};
  size_t kept_events = 256;                 // per thread
  size_t stream_backlog = size_t{1} << 20;  // unsent bytes a stream may hold
};

class LiveStreams {
 public:
  LiveStreams(net::any_io_executor ex, domain::CommentService& comments, domain::LikeService& likes,
              domain::LiveFeed& feed, LiveLimits limits);
  ~LiveStreams();
  LiveStreams(const LiveStreams&) = delete;
  LiveStreams& operator=(const LiveStreams&) = delete;

  // A stream of article `article_id`'s events for a reader at `address`; the caller checked
  // that they may read the thread. `last_event_id`: the Last-Event-ID of a reconnect.
  // kUnavailable beyond max_streams, kRateLimited beyond per_address.
  Result<std::shared_ptr<http::EventStream>> Open(int64_t article_id,
                                                  std::optional<uint64_t> last_event_id,
                                                  const std::string& address);
  size_t open_streams() const { return streams_; }
  // At most half of the server's connections may be streams (they are never idle, so the
  // connection cap never closes one for a newcomer): max_streams is lowered to that.
  void FitConnections(size_t max_connections);
  size_t max_streams() const { return limits_.max_streams; }

 private:
  class Stream;
  friend class Stream;
  // What an event sends: its name and data (an empty name: nothing), and the comment it is
  // about (0: none).
  struct Out {
    std::string event;
    std::string data;
    int64_t comment_id = 0;
  };
  struct Kept {
    uint64_t seq = 0;
    std::string frame;  // empty: nothing to replay (held, or its comment changed since)
    std::chrono::steady_clock::time_point at;
    int64_t comment_id = 0;
    bool shown = false;  // a `comment` event
  };
  struct Thread {
    std::vector<std::weak_ptr<Stream>> streams;
    // The announcements not yet sent, in arrival order; one coroutine works through them.
    std::deque<domain::LiveEvent> queue;
    bool draining = false;
    // The last sequence number seen (0: none since watching began), and the frames of the
    // events worked through, gapless, oldest first: every event from kept_from on is in
    // `kept` (0: none yet since watching began or the last reset). Events seen but still
    // being read (after kept's last) reach every stream open by then when they are sent.
    uint64_t last_seq = 0;
    uint64_t kept_from = 0;
    // Moves at each reset: an event read before one is sent but not kept (what a resume gets
    // starts after the reset).
    uint64_t generation = 0;
    std::deque<Kept> kept;
    std::chrono::steady_clock::time_point unwatched_at{};  // when its last stream went
  };

  void OnEvent(const domain::LiveEvent& e);
  void OnState(bool subscribed);
  Awaitable<void> Drain(int64_t article_id);
  // The event's frame (empty: nothing to send).
  Awaitable<Out> Frame(const domain::LiveEvent& e);
  Awaitable<Out> LikesFrame(const domain::LiveEvent& e);
  void Send(Thread& t, uint64_t seq, const Out& out, bool keep);
  void Reset(Thread& t);
  void Remove(int64_t article_id, const std::string& address, const Stream* stream);
  void Forget();  // threads unwatched for longer than `keep`

  net::any_io_executor ex_;
  domain::CommentService& comments_;
  domain::LikeService& likes_;
  domain::LiveFeed& feed_;
  LiveLimits limits_;
  std::unordered_map<int64_t, Thread> threads_;
  std::unordered_map<std::string, size_t> by_address_;
  size_t streams_ = 0;
  bool subscribed_ = false;
  bool ever_subscribed_ = false;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // for Drain after destruction
};

}  // namespace plaudit::render
