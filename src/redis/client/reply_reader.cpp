#include "redis/client/reply_reader.hpp"

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

// Where the task's value goes: a new root, or its slot in the parent array (sized when the
// parent was created, so element addresses stay put while hiredis fills them). Returns the
// object hiredis keeps for the task: the ReplyRoot for the root, the element otherwise.
void* Place(const redisReadTask* task, Reply** slot) {
  if (task->parent == nullptr) {
    auto* root = new (std::nothrow) ReplyRoot;
    if (root == nullptr) {
      return nullptr;
    }
    *slot = &root->value;
    return root;
  }
  void* parent_obj = task->parent->obj;
  Reply* parent = task->parent->parent == nullptr ? &static_cast<ReplyRoot*>(parent_obj)->value
                                                  : static_cast<Reply*>(parent_obj);
  *slot = &parent->elements[static_cast<size_t>(task->idx)];
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

// These run inside hiredis (C): nothing may throw through them; nullptr means out of memory.
void* CreateString(const redisReadTask* task, char* str, size_t len) {
  try {
    Reply* slot = nullptr;
    void* obj = Place(task, &slot);
    if (obj == nullptr) {
      return nullptr;
    }
    slot->type = TypeOf(task->type);
    slot->str.assign(str, len);
    SyncHead(task, obj);
    return obj;
  } catch (...) {
    return nullptr;
  }
}

void* CreateArray(const redisReadTask* task, int elements) {
  try {
    Reply* slot = nullptr;
    void* obj = Place(task, &slot);
    if (obj == nullptr) {
      return nullptr;
    }
    slot->type = Reply::Type::kArray;
    slot->elements.resize(static_cast<size_t>(elements));
    SyncHead(task, obj);
    return obj;
  } catch (...) {
    return nullptr;
  }
}

void* CreateInteger(const redisReadTask* task, long long value) {
  Reply* slot = nullptr;
  void* obj = Place(task, &slot);
  if (obj == nullptr) {
    return nullptr;
  }
  slot->type = Reply::Type::kInteger;
  slot->integer = value;
  SyncHead(task, obj);
  return obj;
}

void* CreateNil(const redisReadTask* task) {
  Reply* slot = nullptr;
  void* obj = Place(task, &slot);
  if (obj == nullptr) {
    return nullptr;
  }
  slot->type = Reply::Type::kNil;
  SyncHead(task, obj);
  return obj;
}

void FreeObject(void* obj) { delete static_cast<ReplyRoot*>(obj); }

redisReplyObjectFunctions kFunctions = {CreateString, CreateArray, CreateInteger, CreateNil,
                                        FreeObject};

}  // namespace

void UseReplyReader(redisReader* reader) { reader->fn = &kFunctions; }

redisReplyObjectFunctions* ReplyReaderFunctions() { return &kFunctions; }

Reply TakeReply(void* root) { return std::move(static_cast<ReplyRoot*>(root)->value); }

}  // namespace plaudit::redis
