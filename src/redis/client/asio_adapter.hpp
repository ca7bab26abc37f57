#pragma once
// Runs a hiredis async context on an Asio executor (hiredis 0.14 ships adapters for libev,
// libuv and friends, but none for Asio).
//
// hiredis owns the socket: it asks for read/write interest through the ev.* hooks and closes
// the fd itself when it frees the context. The adapter only watches the fd with
// stream_descriptor::async_wait and calls redisAsyncHandleRead/Write when it is ready; its
// cleanup releases the descriptor without closing it. Wait handlers may still be queued when
// hiredis frees the context, so they hold the adapter state by shared_ptr and check a flag.
#include <functional>

#include "common/net.hpp"

struct redisAsyncContext;

namespace plaudit::redis {

// Attaches `ac` (not yet attached to any event library) to `ex`. `on_flush` is called each
// time the write handler is about to flush buffered commands (one call = one write batch).
// Returns false if the context already has an event library or the fd cannot be watched;
// the caller then frees the context.
bool AttachAsio(redisAsyncContext* ac, const net::any_io_executor& ex,
                std::function<void()> on_flush);

}  // namespace plaudit::redis
