#include "redis/client/asio_adapter.hpp"

#include <errno.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <utility>

// Exported by hiredis 0.14 (async.c; redisAsyncHandleRead calls it after reading) but not
// declared in its headers.
extern "C" void redisProcessCallbacks(redisAsyncContext* ac);

namespace plaudit::redis {
namespace {

// How much of one read is handed to hiredis's reader before its replies are dispatched.
// After each reply the reader moves the unread rest of its buffer to the front once 1 KiB has
// been consumed (hiredis 0.14, redisReaderGetReply), so a 16 KiB read of 2 KiB replies (an
// article list: 20 HGETALLs) was moved about 8 times: ~150k instructions a list request,
// 15% of it (callgrind). Fed 2 KiB at a time, each move is at most about 2 KiB.
constexpr size_t kFeedChunk = 2048;
constexpr size_t kReadSize = size_t{16} * 1024;  // what hiredis's own read takes at once

// The state behind ac->ev.data. hiredis holds a raw pointer to it; `self_` keeps it alive
// until hiredis calls Cleanup, and each outstanding async_wait holds another reference.
class AsioEvents : public std::enable_shared_from_this<AsioEvents> {
 public:
  AsioEvents(redisAsyncContext* ac, const net::any_io_executor& ex, std::function<void()> on_flush)
      : ac_(ac), fd_(ex), on_flush_(std::move(on_flush)) {}

  bool Assign(int fd) {
    boost::system::error_code ec;
    fd_.assign(fd, ec);
    return !ec;
  }

  void Install() {
    self_ = shared_from_this();
    ac_->ev.data = this;
    ac_->ev.addRead = [](void* p) { static_cast<AsioEvents*>(p)->AddRead(); };
    ac_->ev.delRead = [](void* p) { static_cast<AsioEvents*>(p)->want_read_ = false; };
    ac_->ev.addWrite = [](void* p) { static_cast<AsioEvents*>(p)->AddWrite(); };
    ac_->ev.delWrite = [](void* p) { static_cast<AsioEvents*>(p)->want_write_ = false; };
    ac_->ev.cleanup = [](void* p) { static_cast<AsioEvents*>(p)->Cleanup(); };
  }

 private:
  void AddRead() {
    want_read_ = true;
    if (!read_waiting_) {
      WaitRead();
    }
  }

  void AddWrite() {
    want_write_ = true;
    if (!write_waiting_) {
      WaitWrite();
    }
  }

  void WaitRead() {
    read_waiting_ = true;
    fd_.async_wait(net::posix::descriptor_base::wait_read,
                   [self = shared_from_this()](boost::system::error_code ec) {
                     self->read_waiting_ = false;
                     if (ec || !self->alive_ || !self->want_read_) {
                       return;
                     }
                     // May free the context (and so call Cleanup) before it returns.
                     self->HandleRead();
                     if (self->alive_ && self->want_read_ && !self->read_waiting_) {
                       self->WaitRead();
                     }
                   });
  }

  // redisAsyncHandleRead, but feeding the reader kFeedChunk bytes at a time. Anything but
  // data (the connect step, EOF, an error) is left to hiredis itself, which reads again and
  // disconnects as it would have. One difference: after a read error (a reset) hiredis's own
  // read usually sees EOF, so the disconnect is logged as "Server closed the connection"
  // rather than with the errno; the requests in flight fail the same way.
  void HandleRead() {
    redisContext* c = &ac_->c;
    if (!(c->flags & REDIS_CONNECTED)) {
      redisAsyncHandleRead(ac_);
      return;
    }
    char buf[kReadSize];
    ssize_t n = ::read(c->fd, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      return;
    }
    if (n <= 0) {
      redisAsyncHandleRead(ac_);
      return;
    }
    for (size_t off = 0; off < static_cast<size_t>(n) && alive_;) {
      const size_t len = std::min(kFeedChunk, static_cast<size_t>(n) - off);
      // A reader already in error refuses the bytes; redisProcessCallbacks then disconnects.
      (void)redisReaderFeed(c->reader, buf + off, len);
      off += len;
      // May free the context (a callback, a reply error): Cleanup clears alive_.
      redisProcessCallbacks(ac_);
    }
  }

  void WaitWrite() {
    write_waiting_ = true;
    fd_.async_wait(net::posix::descriptor_base::wait_write,
                   [self = shared_from_this()](boost::system::error_code ec) {
                     self->write_waiting_ = false;
                     if (ec || !self->alive_ || !self->want_write_) {
                       return;
                     }
                     // The first write event only completes the connect; count real flushes.
                     if ((self->ac_->c.flags & REDIS_CONNECTED) && sdslen(self->ac_->c.obuf) > 0 &&
                         self->on_flush_) {
                       self->on_flush_();
                     }
                     redisAsyncHandleWrite(self->ac_);
                     if (self->alive_ && self->want_write_ && !self->write_waiting_) {
                       self->WaitWrite();
                     }
                   });
  }

  // hiredis is freeing the context and will close the fd itself.
  void Cleanup() {
    alive_ = false;
    want_read_ = false;
    want_write_ = false;
    ac_->ev = {};  // hiredis must not reach this object through its hooks any more
    ac_ = nullptr;
    on_flush_ = nullptr;
    // release() deregisters the fd and aborts the pending waits without closing it.
    fd_.release();
    auto keep = std::move(self_);  // may destroy *this when this function returns
  }

  redisAsyncContext* ac_;
  net::posix::stream_descriptor fd_;
  std::function<void()> on_flush_;
  std::shared_ptr<AsioEvents> self_;
  bool alive_ = true;
  bool want_read_ = false;
  bool want_write_ = false;
  bool read_waiting_ = false;
  bool write_waiting_ = false;
};

}  // namespace

bool AttachAsio(redisAsyncContext* ac, const net::any_io_executor& ex,
                std::function<void()> on_flush) {
  if (ac->ev.data != nullptr) {
    return false;
  }
  auto events = std::make_shared<AsioEvents>(ac, ex, std::move(on_flush));
  if (!events->Assign(ac->c.fd)) {
    return false;
  }
  events->Install();
  return true;
}

}  // namespace plaudit::redis
