#pragma once
// One Redis pub/sub channel, listened to on a connection of its own (a connection in
// subscribe mode can run no other command), reconnecting with backoff for as long as it runs.
//
// The contract the session cache builds on: on_state(true) once the subscription is
// confirmed, on_state(false) as soon as the connection is lost. A message published while
// the state was false may have been missed; so may one published just before on_state(true),
// which is why a listener resets what it derived from messages on either transition.
// All calls and callbacks happen on the executor given to Create().
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/net.hpp"
#include "common/redis_endpoint.hpp"

namespace plaudit::redis {

struct SubscriberHandlers {
  std::function<void(std::string_view payload)> on_message;
  std::function<void(bool subscribed)> on_state;
};

class Subscriber {
 public:
  static std::shared_ptr<Subscriber> Create(net::any_io_executor ex, RedisEndpoint endpoint,
                                            std::string channel, SubscriberHandlers handlers);
  // Asks `where` for the node before each connect (Client::PubSubEndpoint). `sharded`: a
  // shard channel (SSUBSCRIBE; Client::ShardedPubSub), whose subscription Redis ends when the
  // channel's slot leaves the node; the subscriber then connects again where `where` says.
  // `recheck` > 0: while subscribed, `where` is asked again that often, and a new answer moves
  // the subscription there (a Sentinel's new primary, before the old one is demoted).
  static std::shared_ptr<Subscriber> Create(net::any_io_executor ex,
                                            std::function<RedisEndpoint()> where,
                                            std::string channel, bool sharded,
                                            SubscriberHandlers handlers,
                                            std::chrono::milliseconds recheck = {});
  virtual ~Subscriber() = default;

  virtual void Start() = 0;
  // Closes the connection; no callback runs after Stop() returns.
  virtual void Stop() = 0;
  virtual bool subscribed() const = 0;
};

}  // namespace plaudit::redis
