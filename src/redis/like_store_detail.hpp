#pragma once
// Private to the LikeStore files (like_*.cpp): the helpers more than one of them needs.
#include <cstdint>
#include <string>

#include "model/target.hpp"
#include "redis/keys.hpp"
#include "redis/like_store.hpp"

namespace plaudit::redis::detail {

// The member of a target's user-id bucket (big mode), as keys::LikeBucket names it.
inline std::string Member(const model::Target& t, int64_t bucket) {
  return keys::Cat(TargetName(t), ":", keys::Num(bucket));
}
// The member of a target's small-mode records (one set for every liker; see like_set.lua).
inline std::string SmallMember(const model::Target& t) {
  return keys::Cat(TargetName(t), keys::kLikeSmallSetTail);
}

}  // namespace plaudit::redis::detail
