#include "render/live_streams.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "render/comment_text.hpp"
#include "render/json_text.hpp"

namespace plaudit::render {
namespace {

using Clock = std::chrono::steady_clock;

// Announcements of one thread waiting to be read, at most.
constexpr size_t kMaxQueued = 1000;

// "id: <seq>" (when given), the event's name and its data, as text/event-stream frames them.
std::string EventFrame(std::optional<uint64_t> seq, std::string_view event, std::string_view data) {
  std::string out;
  out.reserve(data.size() + 48);
  if (seq) {
    out.append("id: ").append(std::to_string(*seq)).push_back('\n');
  }
  out.append("event: ").append(event).push_back('\n');
  out.append("data: ").append(data).append("\n\n");
  return out;
}

std::string ResetFrame(uint64_t seq) {
  return EventFrame(seq > 0 ? std::optional<uint64_t>(seq) : std::nullopt, "reset", "{}");
}

}  // namespace

// One reader's stream: the frames waiting to be written, and a timer that is both the
// heartbeat and the wake-up (cancelled when a frame arrives or the stream closes).
class LiveStreams::Stream : public http::EventStream {
 public:
  Stream(LiveStreams& owner, int64_t article_id, std::string address)
      : owner_(owner),
        alive_(owner.alive_),
        article_id_(article_id),
        address_(std::move(address)),
        timer_(owner.ex_) {}
  ~Stream() override { Detach(); }

  Awaitable<std::string> Next() override {
    while (true) {
      if (!pending_.empty()) {
        std::string out;
        out.swap(pending_);
        co_return out;
      }
      if (closed_) {
        co_return std::string();
      }
      timer_.expires_after(owner_heartbeat());
      boost::system::error_code ec;
      co_await timer_.async_wait(net::redirect_error(net::use_awaitable, ec));
      if (!ec && pending_.empty() && !closed_) {
        co_return std::string(": ping\n\n");
      }
    }
  }

  void Close() override {
    if (closed_) {
      return;
    }
    closed_ = true;
    timer_.cancel();
    Detach();
  }

  // An event's frame, unless the reader had it already (a reconnect from another instance).
  void Push(uint64_t seq, std::string_view frame) {
    if (seq > skip_through_) {
      Push(frame);
    }
  }
  void skip_through(uint64_t seq) { skip_through_ = seq; }

  void Push(std::string_view frame) {
    if (closed_) {
      return;
    }
    if (pending_.size() + frame.size() > backlog_) {
      // It stopped reading: closed; it comes back with its Last-Event-ID.
      Close();
      return;
    }
    pending_.append(frame);
    timer_.cancel();
  }

  void set_bounds(std::chrono::milliseconds heartbeat, size_t backlog) {
    heartbeat_ = heartbeat;
    backlog_ = backlog;
  }

 private:
  std::chrono::milliseconds owner_heartbeat() const { return heartbeat_; }
  void Detach() {
    if (!attached_) {
      return;
    }
    attached_ = false;
    if (auto alive = alive_.lock(); alive && *alive) {
      owner_.Remove(article_id_, address_, this);
    }
  }

  LiveStreams& owner_;
  std::weak_ptr<bool> alive_;
  const int64_t article_id_;
  const std::string address_;
  net::steady_timer timer_;
  std::string pending_;
  bool closed_ = false;
  bool attached_ = true;
  uint64_t skip_through_ = 0;
  std::chrono::milliseconds heartbeat_{25'000};
  size_t backlog_ = size_t{1} << 20;
};

LiveStreams::LiveStreams(net::any_io_executor ex, domain::CommentService& comments,
                         domain::LikeService& likes, domain::LiveFeed& feed, LiveLimits limits)
    : ex_(std::move(ex)), comments_(comments), likes_(likes), feed_(feed), limits_(limits) {
  feed_.Listen([this](const domain::LiveEvent& e) { OnEvent(e); },
               [this](bool subscribed) { OnState(subscribed); });
}

LiveStreams::~LiveStreams() {
  *alive_ = false;
  feed_.Listen({}, {});
}

Result<std::shared_ptr<http::EventStream>> LiveStreams::Open(int64_t article_id,
                                                             std::optional<uint64_t> last_event_id,
                                                             const std::string& address) {
  if (streams_ >= limits_.max_streams) {
    Error e{ErrorCode::kUnavailable, "too many live streams on this server; retry later"};
    e.retry_after_seconds = 10;
    return tl::unexpected(e);
  }
  size_t& mine = by_address_[address];
  if (mine >= limits_.per_address) {
    Error e{ErrorCode::kRateLimited, "too many live streams from this address"};
    e.retry_after_seconds = 10;
    return tl::unexpected(e);
  }
  Forget();
  auto stream = std::make_shared<Stream>(*this, article_id, address);
  stream->set_bounds(limits_.heartbeat, limits_.stream_backlog);
  Thread& t = threads_[article_id];
  t.streams.push_back(stream);
  ++mine;
  ++streams_;

  // How often to retry, then what a reconnect missed, if this instance kept it all: every
  // event after `last` that it has worked through (the ones it is still reading come as they
  // are sent, and ones the reader had from elsewhere are skipped). Else a reset.
  std::string first = "retry: 3000\n\n";
  if (last_event_id) {
    const uint64_t last = *last_event_id;
    const bool kept_all =
        t.last_seq > 0 && last <= t.last_seq && t.kept_from > 0 && last + 1 >= t.kept_from;
    std::string missed;
    if (kept_all) {
      for (const Kept& k : t.kept) {
        if (k.seq > last && !k.frame.empty()) {
          missed += k.frame;
        }
      }
    }
    // More than a stream may hold unsent is a reload's worth: sent as a reset, not as a
    // backlog that would close the stream and bring the reader back to the same place.
    if (!kept_all || missed.size() > limits_.stream_backlog / 2) {
      first += ResetFrame(t.last_seq);
    } else {
      first += missed;
      stream->skip_through(last);
    }
  }
  stream->Push(first);
  return std::shared_ptr<http::EventStream>(std::move(stream));
}

void LiveStreams::FitConnections(size_t max_connections) {
  const size_t most = max_connections / 2;
  if (limits_.max_streams > most) {
    spdlog::warn("live streams: at most {} (half of {} connections), not {}", most, max_connections,
                 limits_.max_streams);
    limits_.max_streams = most;
  }
}

void LiveStreams::Remove(int64_t article_id, const std::string& address, const Stream* stream) {
  --streams_;
  if (auto it = by_address_.find(address); it != by_address_.end() && --it->second == 0) {
    by_address_.erase(it);
  }
  auto it = threads_.find(article_id);
  if (it == threads_.end()) {
    return;
  }
  auto& streams = it->second.streams;
  std::erase_if(streams, [stream](const std::weak_ptr<Stream>& w) {
    auto s = w.lock();
    return !s || s.get() == stream;
  });
  if (streams.empty()) {
    it->second.unwatched_at = Clock::now();
  }
}

void LiveStreams::Forget() {
  const auto now = Clock::now();
  std::erase_if(threads_, [&](const auto& entry) {
    const Thread& t = entry.second;
    return t.streams.empty() && !t.draining && t.queue.empty() &&
           now - t.unwatched_at > limits_.keep;
  });
}

void LiveStreams::OnEvent(const domain::LiveEvent& e) {
  auto it = threads_.find(e.article_id);
  if (it == threads_.end()) {
    return;  // nobody here watches that thread
  }
  Thread& t = it->second;
  if (t.streams.empty() && !t.draining && Clock::now() - t.unwatched_at > limits_.keep) {
    threads_.erase(it);  // nobody here for longer than `keep`: stop reading its comments
    return;
  }
  if (t.queue.size() >= kMaxQueued) {
    // Reads far behind (a slow database): readers reload instead of waiting for them all.
    t.queue.clear();
    Reset(t);
  }
  t.queue.push_back(e);
  if (!t.draining) {
    t.draining = true;
    net::co_spawn(ex_, Drain(e.article_id), net::detached);
  }
}

void LiveStreams::OnState(bool subscribed) {
  if (subscribed && ever_subscribed_ && !subscribed_) {
    // Back after a gap: what was published meanwhile never came.
    // The seq stays: the next event's number shows how far it jumped (and a Drain still
    // reading an older one cannot make the gap look closed).
    for (auto& [id, t] : threads_) {
      Reset(t);
    }
  }
  ever_subscribed_ = ever_subscribed_ || subscribed;
  subscribed_ = subscribed;
}

void LiveStreams::Reset(Thread& t) {
  t.kept.clear();
  t.kept_from = 0;
  ++t.generation;
  const std::string frame = ResetFrame(0);
  // Copied first: a push may close a stream (its backlog full), which removes it from the list.
  std::vector<std::shared_ptr<Stream>> streams;
  for (auto& w : t.streams) {
    if (auto s = w.lock()) {
      streams.push_back(std::move(s));
    }
  }
  for (auto& s : streams) {
    s->skip_through(0);  // the reader starts again from what it reloads
    s->Push(frame);
  }
}

void LiveStreams::Send(Thread& t, uint64_t seq, const Out& out, bool keep) {
  const std::string frame =
      out.event.empty() ? std::string() : EventFrame(seq, out.event, out.data);
  if (keep) {
    const auto now = Clock::now();
    if (out.comment_id != 0 && !out.event.empty() && out.event != "comment") {
      // What a resume replays of the comment from before is its text as it is now, or
      // nothing once it is gone: an edited or removed text is not handed out again.
      for (Kept& k : t.kept) {
        if (k.comment_id != out.comment_id || k.frame.empty()) {
          continue;
        }
        if (k.shown && out.event == "comment_updated") {
          k.frame = EventFrame(k.seq, "comment", out.data);
        } else {
          k.frame.clear();
        }
      }
    }
    if (t.kept_from == 0) {
      t.kept_from = seq;
    }
    t.kept.push_back(Kept{seq, frame, now, out.comment_id, out.event == "comment"});
    while (t.kept.size() > 1 &&
           (t.kept.size() > limits_.kept_events || now - t.kept.front().at > limits_.keep)) {
      t.kept.pop_front();
      t.kept_from = t.kept.front().seq;
    }
  }
  if (frame.empty()) {
    return;
  }
  // Copied first: a push may close a stream, which removes it from this list.
  std::vector<std::shared_ptr<Stream>> streams;
  for (auto& w : t.streams) {
    if (auto s = w.lock()) {
      streams.push_back(std::move(s));
    }
  }
  for (auto& s : streams) {
    s->Push(seq, frame);
  }
}

Awaitable<void> LiveStreams::Drain(int64_t article_id) {
  const std::shared_ptr<bool> alive = alive_;
  while (*alive) {
    auto it = threads_.find(article_id);
    if (it == threads_.end()) {
      co_return;
    }
    Thread& t = it->second;
    if (t.queue.empty()) {
      t.draining = false;
      co_return;
    }
    const domain::LiveEvent e = t.queue.front();
    t.queue.pop_front();
    if (t.last_seq != 0 && e.seq != t.last_seq + 1) {
      // Skipped (lost) or gone back (Redis emptied or restored): what readers have may be off.
      Reset(t);
    }
    t.last_seq = e.seq;
    const uint64_t generation = t.generation;
    const Out out = co_await Frame(e);
    if (!*alive) {
      co_return;
    }
    // Found again: the map may have changed while the comment was read.
    it = threads_.find(article_id);
    if (it == threads_.end()) {
      co_return;
    }
    // Reset meanwhile (the subscription came back: what came between is unknown): sent, but
    // not kept, so that a resume cannot take it for the first event after the reset.
    Send(it->second, e.seq, out, it->second.generation == generation);
  }
}

Awaitable<LiveStreams::Out> LiveStreams::Frame(const domain::LiveEvent& e) {
  if (e.kind == domain::LiveKind::kLikes) {
    co_return co_await LikesFrame(e);
  }
  Out out;
  out.comment_id = e.comment_id;
  // As an anonymous reader reads it: nothing for a comment they may not see.
  auto c = co_await comments_.Get(std::nullopt, e.comment_id);
  if (!c && c.error().code != ErrorCode::kNotFound) {
    spdlog::warn("live update of comment {} not sent: {}", e.comment_id, c.error().message);
    co_return out;
  }
  if (e.kind == domain::LiveKind::kGone) {
    // Unless it is shown again (a restore published before this delete's announcement):
    // then this one is out of date.
    if (c && !c->Placeholder()) {
      co_return out;
    }
    out.event = "comment_deleted";
    out.data = R"({"id":)";
    json_text::Int(out.data, e.comment_id);
    out.data.push_back('}');
    co_return out;
  }
  if (!c) {
    co_return out;
  }
  AppendCommentJson(out.data, *c);
  out.event = e.kind == domain::LiveKind::kShown ? "comment" : "comment_updated";
  co_return out;
}

Awaitable<LiveStreams::Out> LiveStreams::LikesFrame(const domain::LiveEvent& e) {
  const std::shared_ptr<bool> alive = alive_;
  // The counts anonymous readers read: the article's, and those of the named comments they
  // see (a comment held or deleted since it was liked is left out).
  std::vector<int64_t> comment_ids;
  bool article = false;
  for (int64_t id : e.liked) {
    if (id == 0) {
      article = true;
    } else {
      comment_ids.push_back(id);
    }
  }
  std::vector<model::Target> targets;
  if (article) {
    targets.push_back(model::Target::Article(e.article_id));
  }
  if (!comment_ids.empty()) {
    auto seen = co_await comments_.VisibleMany(std::nullopt, comment_ids);
    if (!*alive) {
      co_return Out{};
    }
    if (!seen) {
      spdlog::warn("live like counts of article {} not sent: {}", e.article_id,
                   seen.error().message);
      co_return Out{};
    }
    for (size_t i = 0; i < comment_ids.size(); ++i) {
      if ((*seen)[i]) {
        targets.push_back(model::Target::Comment(comment_ids[i]));
      }
    }
  }
  if (targets.empty()) {
    co_return Out{};
  }
  auto counts = co_await likes_.GetMany(0, targets);
  if (!counts) {
    spdlog::warn("live like counts of article {} not sent: {}", e.article_id,
                 counts.error().message);
    co_return Out{};
  }
  // {"article":{"<id>":{"likeCount":n}},"comment":{"<id>":{"likeCount":n},...}}, as the
  // likes read (GET /api/v1/likes) shapes them, without the caller's "liked".
  std::string data = R"({"article":{)";
  size_t i = 0;
  if (article) {
    data.push_back('"');
    json_text::Int(data, e.article_id);
    data += R"(":{"likeCount":)";
    json_text::Int(data, (*counts)[0].count);
    data += "}";
    i = 1;
  }
  data += R"(},"comment":{)";
  for (size_t j = i; j < targets.size(); ++j) {
    if (j > i) {
      data.push_back(',');
    }
    data.push_back('"');
    json_text::Int(data, targets[j].id);
    data += R"(":{"likeCount":)";
    json_text::Int(data, (*counts)[j].count);
    data += "}";
  }
  data += "}}";
  co_return Out{"likes", std::move(data), 0};
}

}  // namespace plaudit::render
