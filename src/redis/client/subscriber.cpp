// The hiredis-backed Subscriber (see subscriber.hpp). Same shape as the Client: the owner's
// shared_ptr is the only strong reference, timers hold weak_ptrs, and a context is never
// freed from inside one of its own callbacks.
#include "redis/client/subscriber.hpp"

#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <spdlog/spdlog.h>

#include "redis/client/asio_adapter.hpp"

namespace plaudit::redis {
namespace {

constexpr std::chrono::milliseconds kConnectTimeout{1000};
constexpr std::chrono::milliseconds kBackoffMin{50};
constexpr std::chrono::milliseconds kBackoffMax{2000};

class SubscriberImpl final : public Subscriber,
                             public std::enable_shared_from_this<SubscriberImpl> {
 public:
  SubscriberImpl(net::any_io_executor ex, std::function<RedisEndpoint()> where, std::string channel,
                 bool sharded, SubscriberHandlers handlers, std::chrono::milliseconds recheck)
      : ex_(std::move(ex)),
        where_(std::move(where)),
        sharded_(sharded),
        recheck_(recheck),
        recheck_timer_(ex_),
        channel_(std::move(channel)),
        handlers_(std::move(handlers)),
        timer_(ex_) {}

  ~SubscriberImpl() override { Stop(); }

  void Start() override {
    if (!started_ && !stopped_) {
      started_ = true;
      Connect();
    }
  }

  void Stop() override {
    stopped_ = true;
    handlers_ = {};
    timer_.cancel();
    recheck_timer_.cancel();
    subscribed_ = false;
    FreeContext();
  }

  bool subscribed() const override { return subscribed_; }

 private:
  void Connect() {
    if (stopped_) {
      return;
    }
    endpoint_ = where_();  // a cluster's or Sentinel's node of the moment
    redisAsyncContext* ac = endpoint_.unix_path.empty()
                                ? redisAsyncConnect(endpoint_.host.c_str(), endpoint_.port)
                                : redisAsyncConnectUnix(endpoint_.unix_path.c_str());
    if (ac == nullptr || ac->err != 0 || !AttachAsio(ac, ex_, nullptr)) {
      if (ac != nullptr) {
        redisAsyncFree(ac);
      }
      Retry("cannot connect");
      return;
    }
    ac->data = this;
    ac_ = ac;
    ++generation_;
    redisAsyncSetConnectCallback(ac, &OnConnect);
    redisAsyncSetDisconnectCallback(ac, &OnDisconnect);
    // Queued now, written once connected; its first reply confirms the subscription.
    const char* argv[] = {"SUBSCRIBE", channel_.c_str()};
    size_t lens[] = {9, channel_.size()};
    if (redisAsyncCommandArgv(ac, &OnReply, nullptr, 2, argv, lens) != REDIS_OK) {
      FreeContext();
      Retry("cannot queue SUBSCRIBE");
      return;
    }
    // Sharded (a Redis Cluster): SSUBSCRIBE too, on the node that serves the channel's slot.
    // hiredis 0.14 knows only SUBSCRIBE: it enters subscribe mode (and files this callback
    // under the channel's name) on the SUBSCRIBE above, and would abort on an "smessage" it
    // did not expect. In that mode it hands every reply naming the channel to OnReply:
    // "ssubscribe" confirms, "smessage" delivers, and "sunsubscribe", which Redis sends when
    // the slot leaves the node, ends the subscription.
    if (sharded_) {
      const char* sargv[] = {"SSUBSCRIBE", channel_.c_str()};
      size_t slens[] = {10, channel_.size()};
      if (redisAsyncCommandArgv(ac, &OnReply, nullptr, 2, sargv, slens) != REDIS_OK) {
        FreeContext();
        Retry("cannot queue SSUBSCRIBE");
        return;
      }
    }
    // hiredis 0.14 has no connect timeout; this one also covers the SUBSCRIBE reply.
    timer_.expires_after(kConnectTimeout);
    timer_.async_wait([weak = weak_from_this(), gen = generation_](boost::system::error_code ec) {
      auto self = weak.lock();
      if (ec || !self || self->generation_ != gen || self->subscribed_ || self->ac_ == nullptr) {
        return;
      }
      self->FreeContext();
      self->Retry("connect timeout");
    });
  }

  static void OnConnect(const redisAsyncContext* ac, int status) {
    auto* self = static_cast<SubscriberImpl*>(ac->data);
    if (status != REDIS_OK && self->ac_ == ac) {
      // hiredis frees the context right after this callback.
      self->ac_ = nullptr;
      ++self->generation_;
      self->Retry(ac->c.errstr);
    }
  }

  static void OnDisconnect(const redisAsyncContext* ac, int) {
    auto* self = static_cast<SubscriberImpl*>(ac->data);
    if (self->ac_ != ac) {
      return;  // we freed it ourselves
    }
    self->ac_ = nullptr;
    ++self->generation_;
    self->SetSubscribed(false);
    self->Retry("connection lost");
  }

  // Every reply on a subscribed connection: ["subscribe", channel, n] once, then
  // ["message", channel, payload] per message (sharded: "ssubscribe", "smessage"). NULL when
  // the context is being freed.
  static void OnReply(redisAsyncContext* ac, void* reply, void*) {
    auto* r = static_cast<redisReply*>(reply);
    auto* self = static_cast<SubscriberImpl*>(ac->data);
    if (r == nullptr || self == nullptr || self->ac_ != ac) {
      return;
    }
    if (r->type == REDIS_REPLY_ERROR) {
      // SSUBSCRIBE refused (MOVED: the channel's slot is elsewhere now): start again there.
      self->PostRestart(std::string(r->str, r->len));
      return;
    }
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 3 ||
        r->element[0]->type != REDIS_REPLY_STRING) {
      return;
    }
    std::string_view kind(r->element[0]->str, r->element[0]->len);
    if (kind == (self->sharded_ ? "ssubscribe" : "subscribe")) {
      self->backoff_ = kBackoffMin;
      self->timer_.cancel();
      self->SetSubscribed(true);
      self->ArmRecheck();
    } else if ((kind == "message" || kind == "smessage") &&
               r->element[2]->type == REDIS_REPLY_STRING && self->handlers_.on_message) {
      self->handlers_.on_message(std::string_view(r->element[2]->str, r->element[2]->len));
    } else if (kind == "sunsubscribe") {
      self->PostRestart("the channel's slot moved");
    }
  }

  // While subscribed, asks `where` again every recheck_: a node that is no longer the one
  // (Sentinel switched primaries; the old one keeps its subscribers until it is demoted,
  // ~10 s later) is left for the new one, since messages are published there now.
  void ArmRecheck() {
    if (recheck_.count() <= 0) {
      return;
    }
    recheck_timer_.expires_after(recheck_);
    recheck_timer_.async_wait(
        [weak = weak_from_this(), gen = generation_](boost::system::error_code ec) {
          auto self = weak.lock();
          if (ec || !self || self->stopped_ || self->generation_ != gen || !self->subscribed_) {
            return;
          }
          if (self->where_() != self->endpoint_) {
            self->PostRestart("the node to subscribe at has changed");
          } else {
            self->ArmRecheck();
          }
        });
  }

  // Drops the connection (messages may be missed from now: the state goes false at once)
  // and connects again, outside hiredis's callback.
  void PostRestart(std::string reason) {
    SetSubscribed(false);
    net::post(ex_, [weak = weak_from_this(), gen = generation_, reason = std::move(reason)] {
      auto self = weak.lock();
      if (!self || self->stopped_ || self->generation_ != gen) {
        return;
      }
      self->FreeContext();
      self->Retry(reason);
    });
  }

  void SetSubscribed(bool up) {
    if (subscribed_ == up) {
      return;
    }
    subscribed_ = up;
    if (up) {
      spdlog::info("redis: subscribed to {}", channel_);
    } else {
      spdlog::warn("redis: subscription to {} lost", channel_);
    }
    if (handlers_.on_state) {
      handlers_.on_state(up);
    }
  }

  void Retry(const std::string& reason) {
    if (stopped_) {
      return;
    }
    spdlog::debug("redis: subscriber for {}: {}", endpoint_.Describe(), reason);
    auto delay = backoff_;
    backoff_ = std::min(backoff_ * 2, kBackoffMax);
    timer_.expires_after(delay);
    timer_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
      auto self = weak.lock();
      if (!ec && self && self->ac_ == nullptr) {
        self->Connect();
      }
    });
  }

  // Not from inside a hiredis callback. Pending callbacks run with a NULL reply.
  void FreeContext() {
    redisAsyncContext* ac = ac_;
    if (ac == nullptr) {
      return;
    }
    ac_ = nullptr;
    ++generation_;
    redisAsyncFree(ac);
  }

  net::any_io_executor ex_;
  std::function<RedisEndpoint()> where_;
  bool sharded_;
  std::chrono::milliseconds recheck_;
  net::steady_timer recheck_timer_;
  RedisEndpoint endpoint_;
  std::string channel_;
  SubscriberHandlers handlers_;
  net::steady_timer timer_;
  redisAsyncContext* ac_ = nullptr;
  uint64_t generation_ = 0;
  std::chrono::milliseconds backoff_ = kBackoffMin;
  bool started_ = false;
  bool stopped_ = false;
  bool subscribed_ = false;
};

}  // namespace

std::shared_ptr<Subscriber> Subscriber::Create(net::any_io_executor ex, RedisEndpoint endpoint,
                                               std::string channel, SubscriberHandlers handlers) {
  return Create(
      std::move(ex), [endpoint = std::move(endpoint)] { return endpoint; }, std::move(channel),
      false, std::move(handlers));
}

std::shared_ptr<Subscriber> Subscriber::Create(net::any_io_executor ex,
                                               std::function<RedisEndpoint()> where,
                                               std::string channel, bool sharded,
                                               SubscriberHandlers handlers,
                                               std::chrono::milliseconds recheck) {
  return std::make_shared<SubscriberImpl>(std::move(ex), std::move(where), std::move(channel),
                                          sharded, std::move(handlers), recheck);
}

}  // namespace plaudit::redis
