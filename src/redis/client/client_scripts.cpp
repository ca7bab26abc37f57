// Eval: Lua scripts run by EVALSHA. Redis knows a script by the SHA1 of its source, which this
// client learns from SCRIPT LOAD on the script's first use (we have no SHA1 of our own) and
// keeps by the source's hash. Redis forgets scripts (SCRIPT FLUSH, a restart, a failover), so
// a NOSCRIPT reply loads the script again and resends the EVALSHA once. The scripts
// themselves, embedded at build time, are in script.cpp.
#include <iterator>

#include "redis/client/client_impl.hpp"
#include "redis/client/resp.hpp"

namespace plaudit::redis::detail {

Awaitable<Result<Reply>> ClientImpl::Eval(const Script& script, std::vector<std::string> keys,
                                          std::vector<std::string> args) {
  if (shas_.contains(script.source_hash)) {
    return EvalKnown(weak_self_, ex_, script, std::move(keys), std::move(args));
  }
  return EvalImpl(weak_self_, ex_, script, std::move(keys), std::move(args));
}

bool ClientImpl::IsNoScript(const Result<Reply>& r) {
  return r && r->is_error() && r->str.starts_with("NOSCRIPT");
}

Awaitable<Result<std::string>> ClientImpl::LoadScript(std::weak_ptr<ClientImpl> weak,
                                                      net::any_io_executor ex,
                                                      const Script& script) {
  Commands load{{"SCRIPT", "LOAD", script.source}};
  if (auto self = weak.lock()) {
    ++self->stats_.script_loads;
  }
  PL_CO_TRY(auto reply, co_await Send<Result<Reply>>(weak, ex, std::move(load)));
  if (reply.type != Reply::Type::kString || reply.str.empty()) {
    co_return Fail(ErrorCode::kInternal,
                   "redis SCRIPT LOAD " + script.name + " failed: " + reply.str);
  }
  if (auto self = weak.lock()) {
    self->shas_[script.source_hash] = reply.str;
  }
  co_return std::move(reply.str);
}

// EVALSHA of a script whose sha this client knows (every call after its first): framed
// straight from keys and args, with no coroutine frame and no argv of its own. A like's
// EvalImpl frame and its two vectors cost ~1.5k instructions. Keys and args go with the
// handler until the reply, so that a NOSCRIPT (SCRIPT FLUSH, a restarted Redis) can still
// load the script and send them again.
Awaitable<Result<Reply>> ClientImpl::EvalKnown(std::weak_ptr<ClientImpl> weak,
                                               net::any_io_executor ex, const Script& script,
                                               std::vector<std::string> keys,
                                               std::vector<std::string> args) {
  return net::async_initiate<const net::use_awaitable_t<>, void(Result<Reply>)>(
      [weak = std::move(weak), ex = std::move(ex), &script](
          auto handler, std::vector<std::string> keys, std::vector<std::string> args) {
        auto self = weak.lock();
        if (!self) {
          PostCompletion(ex, std::move(handler),
                         Result<Reply>(Fail(ErrorCode::kUnavailable, "redis client destroyed")));
          return;
        }
        // Eval saw the sha, and shas_ only grows.
        FormatEvalSha(self->shas_.at(script.source_hash), keys, args, self->formatted_);
        auto handler_ex = net::get_associated_executor(handler, ex);
        auto done = [weak, ex, &script, keys = std::move(keys), args = std::move(args),
                     h = std::move(handler)](Result<Reply> r) mutable {
          if (!IsNoScript(r)) {
            std::move(h)(std::move(r));
            return;
          }
          net::co_spawn(ex,
                        EvalAfterNoScript(weak, ex, script,
                                          EvalShaCommand("", std::move(keys), std::move(args))),
                        [h = std::move(h)](const std::exception_ptr& e, Result<Reply> r) mutable {
                          if (e) {
                            r = Fail(ErrorCode::kInternal, "redis eval failed");
                          }
                          std::move(h)(std::move(r));
                        });
        };
        self->SubmitFormatted(
            "EVALSHA", AnyHandler(ReplyHandler(net::bind_executor(handler_ex, std::move(done)))));
      },
      net::use_awaitable, std::move(keys), std::move(args));
}

// SCRIPT FLUSH, a Redis restart or a failover emptied the script cache: load the script,
// then send `command` (an EVALSHA of it) once more with the new sha.
Awaitable<Result<Reply>> ClientImpl::EvalAfterNoScript(std::weak_ptr<ClientImpl> weak,
                                                       net::any_io_executor ex,
                                                       const Script& script, Commands command) {
  PL_CO_TRY(auto loaded, co_await LoadScript(weak, ex, script));
  command.front()[1] = std::move(loaded);
  co_return co_await SendKept(weak, ex, &command);
}

// `script` must outlive the call (GetScript's scripts live for the whole process).
Awaitable<Result<Reply>> ClientImpl::EvalImpl(std::weak_ptr<ClientImpl> weak,
                                              net::any_io_executor ex, const Script& script,
                                              std::vector<std::string> keys,
                                              std::vector<std::string> args) {
  std::string sha;
  if (auto self = weak.lock()) {
    sha = self->KnownSha(script);
  } else {
    co_return Fail(ErrorCode::kUnavailable, "redis client destroyed");
  }
  if (sha.empty()) {
    PL_CO_TRY(auto loaded, co_await LoadScript(weak, ex, script));
    sha = std::move(loaded);
  }
  // Built once; Submit only reads it, so a NOSCRIPT retry resends it with the new sha.
  const Commands command = EvalShaCommand(std::move(sha), std::move(keys), std::move(args));
  auto reply = co_await SendKept(weak, ex, &command);
  if (!IsNoScript(reply)) {
    co_return reply;
  }
  co_return co_await EvalAfterNoScript(weak, ex, script, command);
}

// EVALSHA sha numkeys keys... args..., as a one-command batch (keys and args moved in).
Commands ClientImpl::EvalShaCommand(std::string sha, std::vector<std::string> keys,
                                    std::vector<std::string> args) {
  std::vector<std::string> argv;
  argv.reserve(3 + keys.size() + args.size());
  argv.push_back("EVALSHA");
  argv.push_back(std::move(sha));
  argv.push_back(std::to_string(keys.size()));
  std::move(keys.begin(), keys.end(), std::back_inserter(argv));
  std::move(args.begin(), args.end(), std::back_inserter(argv));
  Commands one;
  one.push_back(std::move(argv));
  return one;
}

std::string ClientImpl::KnownSha(const Script& script) const {
  // By the source's hash, not the name: two Script objects may share a name (tests,
  // reloads) and must not share a sha.
  auto it = shas_.find(script.source_hash);
  return it == shas_.end() ? std::string() : it->second;
}

}  // namespace plaudit::redis::detail
