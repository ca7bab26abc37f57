#include "redis/client/reply_reader.hpp"

#include <algorithm>
#include <new>
#include <utility>

namespace plaudit::redis {
namespace {

Reply::Type TypeOf(int hiredis_type) {
  switch (hiredis_type) {
    case REDIS_REPLY_STRING:
      return Reply::Type::kString;
    case REDIS_REPLY_STATUS:
      return Reply::Type::kStatus;
    case REDIS_REPLY_ERROR:
      return Reply::Type::kError;
    case REDIS_REPLY_INTEGER:
      return Reply::Type::kInteger;
    case REDIS_REPLY_ARRAY:
      return Reply::Type::kArray;
    default:
      return Reply::Type::kNil;
  }
}

// Where the task's value goes: a new root, or the next slot of the parent array. Returns the
// object hiredis keeps for the task: the ReplyRoot for the root, the element otherwise.
// An array grows as its elements arrive (hiredis hands them over in order, idx 0, 1, …), not
// to the count its header declares: "*100000000\r\n" from a server would otherwise make a
// hundred million empty Replies (8 GB) before one element was read (found by fuzz/resp.cpp).
// Growing moves the earlier elements, which is safe: hiredis keeps the object of each array
// being filled (this one, and its parents', which do not grow meanwhile), never a finished
// element's. Throws std::bad_alloc (the callers catch it).
void* Place(const redisReadTask* task, Reply** slot) {
  if (task->parent == nullptr) {
    auto* root = new ReplyRoot;
    *slot = &root->value;
    return root;
  }
  void* parent_obj = task->parent->obj;
  Reply* parent = task->parent->parent == nullptr ? &static_cast<ReplyRoot*>(parent_obj)->value
                                                  : static_cast<Reply*>(parent_obj);
  const auto idx = static_cast<size_t>(task->idx);
  if (idx >= parent->elements.size()) {
    parent->elements.resize(idx + 1);
  }
  *slot = &parent->elements[idx];
  return *slot;
}

// Mirrors a root's value into its redisReply header (see the header comment).
void SyncHead(const redisReadTask* task, void* obj) {
  if (task->parent != nullptr) {
    return;
  }
  auto* root = static_cast<ReplyRoot*>(obj);
  root->head.type = task->type;
  root->head.integer = root->value.integer;
  root->head.str = root->value.str.data();
  root->head.len = root->value.str.size();
  root->head.elements = root->value.elements.size();
}

// What each callback below shares: the reply placed (Place), `fill` run on it, the root's
// header kept in step (SyncHead). These run inside hiredis (C): nothing may throw through them,
// and nullptr means out of memory, so a root made here and not handed back is freed.
template <class Fill>
void* Create(const redisReadTask* task, Fill fill) noexcept {
  void* obj = nullptr;
  try {
    Reply* slot = nullptr;
    obj = Place(task, &slot);
    fill(*slot);
    SyncHead(task, obj);
    return obj;
  } catch (...) {
    if (task->parent == nullptr) {
      delete static_cast<ReplyRoot*>(obj);
    }
    return nullptr;
  }
}

void* CreateString(const redisReadTask* task, char* str, size_t len) {
  return Create(task, [&](Reply& r) {
    r.type = TypeOf(task->type);
    r.str.assign(str, len);
  });
}

void* CreateArray(const redisReadTask* task, int elements) {
  void* obj = Create(task, [&](Reply& r) {
    r.type = Reply::Type::kArray;
    // Room for a small array's elements at once; a large one grows as they come (Place).
    constexpr size_t kReservedAtMost = 1024;
    r.elements.reserve(std::min(static_cast<size_t>(elements), kReservedAtMost));
  });
  if (obj != nullptr && task->parent == nullptr) {
    static_cast<ReplyRoot*>(obj)->head.elements = static_cast<size_t>(elements);
  }
  return obj;
}

void* CreateInteger(const redisReadTask* task, long long value) {
  return Create(task, [&](Reply& r) {
    r.type = Reply::Type::kInteger;
    r.integer = value;
  });
}

void* CreateNil(const redisReadTask* task) {
  return Create(task, [](Reply& r) { r.type = Reply::Type::kNil; });
}

void FreeObject(void* obj) { delete static_cast<ReplyRoot*>(obj); }

redisReplyObjectFunctions kFunctions = {CreateString, CreateArray, CreateInteger, CreateNil,
                                        FreeObject};

}  // namespace

void UseReplyReader(redisReader* reader) { reader->fn = &kFunctions; }

redisReplyObjectFunctions* ReplyReaderFunctions() { return &kFunctions; }

Reply TakeReply(void* root) { return std::move(static_cast<ReplyRoot*>(root)->value); }

}  // namespace plaudit::redis
