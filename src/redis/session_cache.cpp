#include "redis/session_cache.hpp"

#include <charconv>
#include <iterator>

namespace plaudit::redis {

const SessionData* SessionCache::Find(std::string_view token, Clock::time_point now) {
  auto it = entries_.find(token);
  if (it == entries_.end()) {
    return nullptr;
  }
  if (it->second.valid_until <= now) {
    Erase(it);
    return nullptr;
  }
  return &it->second.data;
}

void SessionCache::Put(const std::string& token, const std::string& token_hash,
                       const SessionData& data, Clock::time_point valid_until,
                       uint64_t epoch_at_lookup, Clock::time_point now) {
  if (epoch_at_lookup != epoch_ || valid_until <= now || capacity_ == 0) {
    return;
  }
  if (auto it = entries_.find(token); it != entries_.end()) {
    Erase(it);
  }
  if (entries_.size() >= capacity_) {
    for (auto it = entries_.begin(); it != entries_.end();) {
      auto next = std::next(it);
      if (it->second.valid_until <= now) {
        Erase(it);
      }
      it = next;
    }
    if (entries_.size() >= capacity_) {
      entries_.clear();
      tokens_.clear();
    }
  }
  entries_.emplace(token, Entry{data, token_hash, valid_until});
  tokens_[token_hash] = token;
}

void SessionCache::Erase(Entries::iterator it) {
  tokens_.erase(it->second.token_hash);
  entries_.erase(it);
}

SessionCache::Invalidation SessionCache::Parse(std::string_view message) {
  Invalidation inv;
  if (const size_t hash = message.find('#'); hash != std::string_view::npos) {
    inv.ack = message.substr(hash + 1);
    message = message.substr(0, hash);
  }
  if (message.starts_with("t:")) {
    inv.kind = Invalidation::Kind::kToken;
    inv.token_hash = message.substr(2);
  } else if (message.starts_with("u:")) {
    std::string_view digits = message.substr(2);
    int64_t uid = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), uid);
    if (!digits.empty() && ec == std::errc() && ptr == digits.data() + digits.size()) {
      inv.kind = Invalidation::Kind::kUser;
      inv.user_id = uid;
    }
  }
  return inv;
}

void SessionCache::Apply(std::string_view message) {
  const Invalidation inv = Parse(message);
  switch (inv.kind) {
    case Invalidation::Kind::kToken:
      EraseToken(std::string(inv.token_hash));
      return;
    case Invalidation::Kind::kUser:
      EraseUser(inv.user_id);
      return;
    case Invalidation::Kind::kUnknown:
      Clear();
      return;
  }
}

void SessionCache::EraseToken(const std::string& token_hash) {
  ++epoch_;
  auto t = tokens_.find(token_hash);
  if (t == tokens_.end()) {
    return;
  }
  auto it = entries_.find(t->second);
  if (it != entries_.end()) {
    Erase(it);
  }
}

void SessionCache::EraseUser(int64_t user_id) {
  ++epoch_;
  // A role change is rare and the cache is bounded: a scan beats a third index.
  for (auto it = entries_.begin(); it != entries_.end();) {
    auto next = std::next(it);
    if (it->second.data.user_id == user_id) {
      Erase(it);
    }
    it = next;
  }
}

void SessionCache::Clear() {
  ++epoch_;
  entries_.clear();
  tokens_.clear();
}

std::string SessionCache::TokenMessage(std::string_view token_hash) {
  return "t:" + std::string(token_hash);
}

std::string SessionCache::UserMessage(int64_t user_id) { return "u:" + std::to_string(user_id); }

}  // namespace plaudit::redis
