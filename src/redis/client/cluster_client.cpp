// ClusterClient's routing: each call's commands to the primaries of their slots, and the
// redirections that come back (the design is in cluster_client.hpp; the slot map's life is in
// cluster_topology.cpp).
#include "redis/client/cluster_client.hpp"

#include "common/when_all.hpp"

namespace plaudit::redis {

namespace {

using Commands = std::vector<std::vector<std::string>>;
using Replies = std::vector<Reply>;

constexpr int kMaxHops = 8;  // redirections of one command before giving up
constexpr std::chrono::milliseconds kFirstRetryWait{10};
constexpr std::chrono::milliseconds kLongestRetryWait{80};

// A batch of argv commands, as Pipeline takes them.
struct ArgvBatch {
  Commands commands;

  size_t size() const { return commands.size(); }
  int Slot(size_t i) const { return cluster::CommandSlot(commands[i]); }
  ArgvBatch Subset(const std::vector<size_t>& which) const {
    ArgvBatch out;
    out.commands.reserve(which.size());
    for (size_t i : which) {
      out.commands.push_back(commands[i]);
    }
    return out;
  }
  ArgvBatch One(size_t i, bool asking) const {
    ArgvBatch out;
    if (asking) {
      out.commands.push_back({"ASKING"});
    }
    out.commands.push_back(commands[i]);
    return out;
  }
  static Awaitable<Result<Replies>> Send(Client& c, ArgvBatch b) {
    return c.Pipeline(std::move(b.commands));
  }
};

// A batch framed by the caller, as PipelineFramed takes it.
struct FramedBatch {
  FramedCommands commands;

  size_t size() const { return commands.size(); }
  int Slot(size_t i) const {
    auto key = cluster::FramedCommandKey(commands.Command(i));
    return key ? cluster::KeySlot(*key) : -1;
  }
  FramedBatch Subset(const std::vector<size_t>& which) const {
    FramedBatch out;
    for (size_t i : which) {
      out.commands.Append(commands, i);
    }
    return out;
  }
  FramedBatch One(size_t i, bool asking) const {
    FramedBatch out;
    if (asking) {
      out.commands.Begin("ASKING", 1);
      out.commands.End();
    }
    out.commands.Append(commands, i);
    return out;
  }
  static Awaitable<Result<Replies>> Send(Client& c, FramedBatch b) {
    return c.PipelineFramed(std::move(b.commands));
  }
};

// Sends one command of a batch (behind ASKING when asked) and returns its reply.
template <class Batch>
struct BatchCommand {
  static constexpr bool kWaitsOutMigrations = false;
  const Batch* batch;  // lives in RunBatch's frame while this runs
  size_t index;

  Awaitable<Result<Reply>> operator()(std::shared_ptr<Client> node, bool asking) const {
    return Send(std::move(node), batch->One(index, asking));
  }
  static Awaitable<Result<Reply>> Send(std::shared_ptr<Client> node, Batch one) {
    PL_CO_TRY(auto r, co_await Batch::Send(*node, std::move(one)));
    if (r.empty()) {
      co_return Fail(ErrorCode::kInternal, "redis: no reply");
    }
    co_return std::move(r.back());
  }
};

// Sends a script: EVALSHA through the node's client (which loads it on NOSCRIPT). Its keys
// end with the slot's guard key, which nothing writes: while the slot migrates, the source
// answers ASK (a key is missing) and the target TRYAGAIN (a multi-key call missing one), so
// the script waits, here, until the slot has one owner again. Never sent behind ASKING: a
// script may touch keys it builds from its first key's tag (like_set.lua), and run on the
// target with some of them still at the source it would make a second copy, which MIGRATE
// then refuses to overwrite (the reshard stops half done); run at the source with some of
// them gone it would fail midway, its first writes kept.
struct ScriptCommand {
  static constexpr bool kWaitsOutMigrations = true;
  const Script* script;
  std::vector<std::string> keys;
  std::vector<std::string> args;

  Awaitable<Result<Reply>> operator()(const std::shared_ptr<Client>& node, bool /*asking*/) const {
    return node->Eval(*script, keys, args);
  }
};

Awaitable<Result<int64_t>> Unavailable(std::string why) {
  co_return Fail(ErrorCode::kUnavailable, std::move(why));
}

}  // namespace

Awaitable<Result<Reply>> ClusterClient::Command(std::vector<std::string> argv) {
  const int slot = cluster::CommandSlot(argv);
  ArgvBatch one;
  one.commands.push_back(std::move(argv));
  // The batch lives in this coroutine's frame while RunOne's sends read it.
  auto run = [](std::weak_ptr<ClusterClient> weak, int slot,
                ArgvBatch batch) -> Awaitable<Result<Reply>> {
    BatchCommand<ArgvBatch> send{&batch, 0};
    auto r = co_await RunOne(std::move(weak), slot, send);
    co_return r;
  };
  return run(weak_self_, slot, std::move(one));
}

Awaitable<Result<std::vector<Reply>>> ClusterClient::Pipeline(Commands commands) {
  return RunBatch(weak_self_, ArgvBatch{std::move(commands)});
}

Awaitable<Result<std::vector<Reply>>> ClusterClient::PipelineFramed(FramedCommands commands) {
  return RunBatch(weak_self_, FramedBatch{std::move(commands)});
}

Awaitable<Result<Reply>> ClusterClient::Eval(const Script& script, std::vector<std::string> keys,
                                             std::vector<std::string> args) {
  const int slot = keys.empty() ? -1 : cluster::KeySlot(keys.front());
  if (!keys.empty()) {
    std::string guard = cluster::SlotGuardKey(keys.front());
    if (!guard.empty()) {
      keys.push_back(std::move(guard));
    }
  }
  return RunOne(weak_self_, slot, ScriptCommand{&script, std::move(keys), std::move(args)});
}

Awaitable<Result<int64_t>> ClusterClient::WaitReplicas(std::string_view key, int replicas,
                                                       std::chrono::milliseconds timeout) {
  auto node = Route(cluster::KeySlot(key));
  if (!node) {
    WantRefresh();
    return Unavailable("redis cluster: no node serves the slot of " + std::string(key));
  }
  return node->client->WaitReplicas(key, replicas, timeout);
}

// One command to the node of `slot`, following redirections (see the header).
template <class Send>
Awaitable<Result<Reply>> ClusterClient::RunOne(std::weak_ptr<ClusterClient> weak, int slot,
                                               Send send) {
  std::chrono::milliseconds timeout{1000};
  if (auto self = weak.lock()) {
    timeout = self->options_.command_timeout;
  }
  const auto deadline = Clock::now() + timeout;
  auto wait = kFirstRetryWait;
  std::optional<RedisEndpoint::Node> ask;
  for (int hop = 0; hop < kMaxHops; ++hop) {
    std::shared_ptr<Node> node;
    {
      auto self = weak.lock();
      if (!self) {
        co_return Fail(ErrorCode::kUnavailable, "redis client destroyed");
      }
      node = ask ? self->NodeAt(*ask) : self->Route(slot);
      if (!node) {
        self->WantRefresh();
        co_return Fail(ErrorCode::kUnavailable,
                       "redis cluster: no node serves slot " + std::to_string(slot));
      }
    }
    if (!node->client->connected()) {
      // A node the map just named: give its connection a moment rather than fail at once.
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      auto up = co_await node->client->WaitConnected(
          std::min(std::max(left, std::chrono::milliseconds(0)), std::chrono::milliseconds(100)));
      if (!up) {
        if (auto self = weak.lock()) {
          self->WantRefresh();
        }
        co_return Fail(ErrorCode::kUnavailable,
                       "redis unavailable: " + cluster::NodeName(node->addr));
      }
    }
    auto op = send(node->client, ask.has_value());
    auto r = co_await std::move(op);
    if (!r) {
      if (auto self = weak.lock()) {
        self->WantRefresh();
      }
      co_return r;
    }
    auto redirect = cluster::ParseRedirect(*r);
    if (redirect.node.host.empty()) {
      redirect.node.host = node->addr.host;
    }
    switch (redirect.kind) {
      case cluster::Redirect::Kind::kNone:
        co_return r;
      case cluster::Redirect::Kind::kMoved:
        if (auto self = weak.lock()) {
          self->NoteMoved(redirect.slot, redirect.node);
        }
        ask.reset();
        break;
      case cluster::Redirect::Kind::kAsk:
        if constexpr (!Send::kWaitsOutMigrations) {
          ask = redirect.node;
          break;
        }
        [[fallthrough]];  // a script: wait for the migration to end (ScriptCommand)
      case cluster::Redirect::Kind::kTryAgain: {
        ask.reset();
        if (Clock::now() + wait > deadline) {
          co_return Fail(ErrorCode::kUnavailable, "redis cluster: " + r->str);
        }
        net::steady_timer timer(co_await net::this_coro::executor, wait);
        co_await timer.async_wait(net::as_tuple(net::use_awaitable));
        // A slot's migration takes milliseconds: no wait much longer than it.
        wait = std::min(wait * 2, kLongestRetryWait);
        --hop;  // waiting is not a redirection; the deadline bounds it
        break;
      }
    }
  }
  co_return Fail(ErrorCode::kUnavailable, "redis cluster: too many redirections");
}

template <class Batch>
Awaitable<Result<std::vector<Reply>>> ClusterClient::RunBatch(std::weak_ptr<ClusterClient> weak,
                                                              Batch batch) {
  const size_t n = batch.size();
  if (n == 0) {
    co_return Replies{};
  }
  // Group the commands by node, in order.
  std::vector<std::shared_ptr<Node>> nodes;
  std::vector<std::vector<size_t>> members;
  {
    auto self = weak.lock();
    if (!self) {
      co_return Fail(ErrorCode::kUnavailable, "redis client destroyed");
    }
    for (size_t i = 0; i < n; ++i) {
      auto node = self->Route(batch.Slot(i));
      if (!node) {
        self->WantRefresh();
        co_return Fail(ErrorCode::kUnavailable, "redis cluster: no slot map yet");
      }
      size_t g = 0;
      while (g < nodes.size() && nodes[g] != node) {
        ++g;
      }
      if (g == nodes.size()) {
        nodes.push_back(std::move(node));
        members.emplace_back();
      }
      members[g].push_back(i);
    }
  }
  Replies out;
  if (nodes.size() == 1) {
    Batch copy = batch;  // kept for the redirections below
    auto r = co_await Batch::Send(*nodes[0]->client, std::move(copy));
    if (!r) {
      if (auto self = weak.lock()) {
        self->WantRefresh();
      }
      co_return r;
    }
    out = std::move(*r);
  } else {
    // Every node's share at once; a node's failure fails the call, as one Redis's would.
    std::vector<Awaitable<Result<Replies>>> shares;
    shares.reserve(nodes.size());
    for (size_t g = 0; g < nodes.size(); ++g) {
      shares.push_back(Batch::Send(*nodes[g]->client, batch.Subset(members[g])));
    }
    auto results = co_await WhenAll(std::move(shares));
    out.resize(n);
    for (size_t g = 0; g < nodes.size(); ++g) {
      if (!results[g]) {
        if (auto self = weak.lock()) {
          self->WantRefresh();
        }
        co_return tl::unexpected(results[g].error());
      }
      if (results[g]->size() != members[g].size()) {
        co_return Fail(ErrorCode::kInternal, "redis cluster: replies do not match the batch");
      }
      for (size_t k = 0; k < members[g].size(); ++k) {
        out[members[g][k]] = std::move((*results[g])[k]);
      }
    }
  }
  // Redirected (or refused for now): each such command again on its own path.
  for (size_t i = 0; i < n; ++i) {
    if (cluster::ParseRedirect(out[i]).kind == cluster::Redirect::Kind::kNone) {
      continue;
    }
    BatchCommand<Batch> send{&batch, i};
    PL_CO_TRY(auto r, co_await RunOne(weak, batch.Slot(i), send));
    out[i] = std::move(r);
  }
  co_return out;
}

}  // namespace plaudit::redis
