#pragma once
// The check that Redis is not older than SQL on the current connection (docs/architecture.md,
// "After Redis comes back older"), as the services and repositories need it: flush::RedisCheck
// implements it, the wiring hands it to them, and nothing in domain/ or store/ calls up into
// flush/.
#include "common/net.hpp"
#include "common/result.hpp"

namespace plaudit::store {

class RedisFreshness {
 public:
  virtual ~RedisFreshness() = default;

  // Whether likes, and views, may be served on the current connection (an integer compare).
  virtual bool LikesChecked() const = 0;
  virtual bool ViewsChecked() const = 0;
  // One check (concurrent calls share it). False: SQL could not be read, so nothing was
  // checked (likes answer 503 until a check passes; reads and views go on).
  virtual Awaitable<Result<bool>> Check() = 0;
  // Check() on a connection already checked: a script found the dataset emptied since.
  virtual Awaitable<Result<bool>> Recheck() = 0;
  // Checks until the views are checked, waiting a few seconds while another process recovers
  // them (then kUnavailable); goes on when SQL cannot be read.
  virtual Awaitable<Status> EnsureViews() = 0;
};

}  // namespace plaudit::store
