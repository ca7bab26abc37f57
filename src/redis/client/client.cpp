// The client's public calls and its pipelining: each call becomes a Request whose commands
// are framed in RESP (resp.hpp) and appended to hiredis's output buffer, which leaves in one
// write at the end of the loop turn or as soon as eager_flush_requests calls are waiting;
// replies come back in send order and are matched to their Request. The design notes, the
// Request's lifetime and the other files of ClientImpl are in client_impl.hpp.
#include <hiredis/hiredis.h>
#include <signal.h>

#include <algorithm>
#include <iterator>

#include "redis/client/client_impl.hpp"
#include "redis/client/cluster_client.hpp"
#include "redis/client/reply_reader.hpp"
#include "redis/client/resp.hpp"
#include "redis/client/sentinel_client.hpp"

namespace plaudit::redis {

Script::Script(std::string name, std::string source)
    : name(std::move(name)),
      source(std::move(source)),
      source_hash(std::hash<std::string>{}(this->source)) {}

namespace detail {
namespace {

void Complete(const net::any_io_executor& io_ex, AnyHandler handler, Result<Replies> result) {
  if (handler.one) {
    Result<Reply> one = result ? Result<Reply>(std::move(result->front()))
                               : Result<Reply>(tl::unexpected(std::move(result.error())));
    PostCompletion(io_ex, std::move(handler.one), std::move(one));
  } else if (result) {
    PostCompletion(
        io_ex, std::move(handler.many),
        Result<std::vector<Reply>>(std::vector<Reply>(std::make_move_iterator(result->begin()),
                                                      std::make_move_iterator(result->end()))));
  } else {
    PostCompletion(io_ex, std::move(handler.many),
                   Result<std::vector<Reply>>(tl::unexpected(std::move(result.error()))));
  }
}

}  // namespace

ClientImpl::ClientImpl(net::any_io_executor ex, ClientOptions options)
    : ex_(std::move(ex)),
      options_(std::move(options)),
      backoff_(options_.reconnect_min),
      connect_timer_(ex_),
      reconnect_timer_(ex_),
      timeout_timer_(ex_) {}

std::shared_ptr<ClientImpl> ClientImpl::Make(net::any_io_executor ex, ClientOptions options) {
  auto client = std::make_shared<ClientImpl>(std::move(ex), std::move(options));
  client->weak_self_ = client;
  return client;
}

template <class Value, class Cmds>
Awaitable<Value> ClientImpl::Send(std::weak_ptr<ClientImpl> weak, net::any_io_executor ex,
                                  Cmds commands) {
  using Handler =
      std::conditional_t<std::is_same_v<Value, Result<Reply>>, ReplyHandler, PipelineHandler>;
  return net::async_initiate<const net::use_awaitable_t<>, void(Value)>(
      [weak = std::move(weak), ex = std::move(ex)](auto handler, const Cmds& commands) {
        if (auto self = weak.lock()) {
          self->Submit(commands, AnyHandler(Handler(std::move(handler))));
        } else {
          PostCompletion(ex, std::move(handler),
                         Value(Fail(ErrorCode::kUnavailable, "redis client destroyed")));
        }
      },
      net::use_awaitable, std::move(commands));
}

// client_scripts.cpp sends SCRIPT LOAD through this one.
template Awaitable<Result<Reply>> ClientImpl::Send<Result<Reply>, Commands>(
    std::weak_ptr<ClientImpl>, net::any_io_executor, Commands);

Awaitable<Result<Reply>> ClientImpl::SendKept(std::weak_ptr<ClientImpl> weak,
                                              net::any_io_executor ex, const Commands* commands) {
  return net::async_initiate<const net::use_awaitable_t<>, void(Result<Reply>)>(
      [weak = std::move(weak), ex = std::move(ex)](auto handler, const Commands* commands) {
        if (auto self = weak.lock()) {
          self->Submit(*commands, AnyHandler(ReplyHandler(std::move(handler))));
        } else {
          PostCompletion(ex, std::move(handler),
                         Result<Reply>(Fail(ErrorCode::kUnavailable, "redis client destroyed")));
        }
      },
      net::use_awaitable, commands);
}

Awaitable<Result<Reply>> ClientImpl::Command(std::vector<std::string> argv) {
  Commands commands;
  commands.push_back(std::move(argv));
  return Send<Result<Reply>>(weak_self_, ex_, std::move(commands));
}

Awaitable<Result<std::vector<Reply>>> ClientImpl::Pipeline(Commands commands) {
  return Send<Result<std::vector<Reply>>>(weak_self_, ex_, std::move(commands));
}

Awaitable<Result<std::vector<Reply>>> ClientImpl::PipelineFramed(FramedCommands commands) {
  return Send<Result<std::vector<Reply>>>(weak_self_, ex_, std::move(commands));
}

void ClientImpl::Submit(const Commands& commands, AnyHandler handler) {
  bool is_single = static_cast<bool>(handler.one);
  if (commands.empty()) {
    if (is_single) {
      Complete(ex_, std::move(handler), Fail(ErrorCode::kInvalidArgument, "empty redis command"));
    } else {
      Complete(ex_, std::move(handler), Replies{});
    }
    return;
  }
  for (const auto& argv : commands) {
    if (argv.empty()) {
      Complete(ex_, std::move(handler), Fail(ErrorCode::kInvalidArgument, "empty redis command"));
      return;
    }
  }
  if (state_ != State::kConnected) {
    Complete(ex_, std::move(handler), Fail(ErrorCode::kUnavailable, "redis unavailable"));
    return;
  }
  Request* req = StartRequest(std::move(handler), commands.size());
  if (observer_) {
    for (const auto& argv : commands) {
      req->names.push_back(argv[0]);
    }
  }
  for (const auto& argv : commands) {
    FormatCommand(argv, formatted_);
    if (!WriteFormatted(req)) {
      return;
    }
  }
  Enqueue(req);
}

void ClientImpl::Submit(const FramedCommands& commands, AnyHandler handler) {
  if (commands.size() == 0) {
    Complete(ex_, std::move(handler), Replies{});
    return;
  }
  if (state_ != State::kConnected) {
    Complete(ex_, std::move(handler), Fail(ErrorCode::kUnavailable, "redis unavailable"));
    return;
  }
  Request* req = StartRequest(std::move(handler), commands.size());
  if (observer_) {
    for (size_t i = 0; i < commands.size(); ++i) {
      req->names.push_back(commands.Name(i));
    }
  }
  for (size_t i = 0; i < commands.size(); ++i) {
    if (!WriteFormatted(req, commands.Command(i))) {
      return;
    }
  }
  Enqueue(req);
}

void ClientImpl::SubmitFormatted(std::string_view name, AnyHandler handler) {
  if (state_ != State::kConnected) {
    Complete(ex_, std::move(handler), Fail(ErrorCode::kUnavailable, "redis unavailable"));
    return;
  }
  Request* req = StartRequest(std::move(handler), 1);
  if (observer_) {
    req->names.emplace_back(name);
  }
  if (!WriteFormatted(req)) {
    return;
  }
  Enqueue(req);
}

Request* ClientImpl::StartRequest(AnyHandler handler, size_t commands) {
  auto* req = new Request(std::move(handler));
  req->expected = commands;
  req->replies.reserve(commands);
  req->start = Clock::now();
  req->deadline = req->start + options_.command_timeout;
  return req;
}

// Appends formatted_ to hiredis's output buffer for `req`; the adapter flushes it on the
// next write event, together with every other command appended in the same loop turn.
// False (and `req` failed and gone) when the context refuses it: only one being freed does.
bool ClientImpl::WriteFormatted(Request* req, std::string_view command) {
  if (redisAsyncFormattedCommand(ac_, &OnReply, req, command.data(), command.size()) != REDIS_OK) {
    FinishRequest(req, Fail(ErrorCode::kUnavailable, "redis unavailable"));
    MaybeDelete(req);
    return false;
  }
  ++stats_.commands_sent;
  ++req->in_hiredis;
  return true;
}

void ClientImpl::Enqueue(Request* req) {
  pending_.push_back(req);
  ArmTimeoutTimer();
  // Calls, not commands: a comment page's pipeline of 60 HMGETs and the like script issued
  // beside it must leave in one write (one round trip), not be split by an eager flush.
  ++unflushed_;
  if (options_.eager_flush_requests > 0 && unflushed_ >= options_.eager_flush_requests) {
    FlushNow();
  }
}

// Writes hiredis's output buffer now instead of at the end of the loop turn, so that Redis
// starts on these commands while this thread goes on parsing requests (see
// ClientOptions::eager_flush_requests). Never called from inside a hiredis callback: a
// write error frees the context, which fails the pending requests through posted
// completions and HandleDisconnect.
void ClientImpl::FlushNow() {
  unflushed_ = 0;
  if (ac_ == nullptr || sdslen(ac_->c.obuf) == 0) {
    return;
  }
  ++stats_.batches_flushed;
  redisAsyncHandleWrite(ac_);
}

void ClientImpl::OnReply(redisAsyncContext* ac, void* reply, void* privdata) {
  static_cast<ClientImpl*>(ac->data)->HandleReply(static_cast<Request*>(privdata), reply);
}

void ClientImpl::HandleReply(Request* req, void* reply) {
  --req->in_hiredis;
  if (!req->done) {
    if (reply == nullptr) {
      FinishRequest(req, Fail(ErrorCode::kUnavailable, "redis connection lost"));
    } else {
      size_t index = req->replies.size();
      req->replies.push_back(TakeReply(reply));
      if (observer_ && index < req->names.size()) {
        observer_(req->names[index],
                  std::chrono::duration<double>(Clock::now() - req->start).count());
      }
      // LOADING, BUSY, MASTERDOWN: the call fails as unavailable, as if the connection had
      // dropped (reply.hpp); the rest of its replies are read and dropped.
      if (auto unavailable = UnavailableReply(req->replies.back())) {
        FinishRequest(req, tl::unexpected(std::move(*unavailable)));
      } else if (req->replies.size() == req->expected) {
        FinishRequest(req, std::move(req->replies));
      }
    }
  }
  MaybeDelete(req);
}

void ClientImpl::FinishRequest(Request* req, Result<Replies> result) {
  req->done = true;
  if (!pending_.empty() && pending_.front() == req) {
    pending_.pop_front();
  } else if (auto it = std::find(pending_.begin(), pending_.end(), req); it != pending_.end()) {
    pending_.erase(it);
  }
  Complete(ex_, std::move(req->handler), std::move(result));
}

void ClientImpl::MaybeDelete(Request* req) {
  if (req->done && req->in_hiredis == 0) {
    delete req;
  }
}

}  // namespace detail

std::shared_ptr<Client> Client::Create(net::any_io_executor ex, ClientOptions options) {
  // hiredis writes with write(2), which raises SIGPIPE (default action: exit) when Redis has
  // closed the connection; we want EPIPE and a reconnect instead.
  ::signal(SIGPIPE, SIG_IGN);
  if (options.endpoint.topology == RedisEndpoint::Topology::kCluster) {
    return ClusterClient::Make(std::move(ex), std::move(options));
  }
  if (options.endpoint.topology == RedisEndpoint::Topology::kSentinel) {
    return SentinelClient::Make(std::move(ex), std::move(options));
  }
  return detail::ClientImpl::Make(std::move(ex), std::move(options));
}

}  // namespace plaudit::redis
