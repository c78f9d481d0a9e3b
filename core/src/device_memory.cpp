#include "opscope/device_memory.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

#include "opscope/error.h"

namespace opscope::device {
namespace {

// Large blocks are mapped directly, like a device allocator's: freeing them returns the memory
// (malloc would keep it in its heap), so peak memory measures what is really in use. Like the
// device's memory pool, up to kCacheLimit bytes of freed large blocks are kept for reuse by an
// allocation of the same size: a program that allocates its workspace on every call (as the
// samples do) does not pay for fresh pages every time.
constexpr std::size_t kMapThreshold = std::size_t{1} << 20;
constexpr std::size_t kCacheLimit = std::size_t{64} << 20;

struct BlockCache {
    std::mutex m;
    std::multimap<std::size_t, void*> blocks;  // size -> mapped block
    std::size_t bytes = 0;
};

BlockCache& blockCache() {
    static BlockCache* c = new BlockCache();
    return *c;
}

void* rawAllocate(std::size_t bytes) {
    if (bytes < kMapThreshold) return std::aligned_alloc(kAlignment, bytes);
    {
        BlockCache& c = blockCache();
        std::lock_guard<std::mutex> lk(c.m);
        auto it = c.blocks.find(bytes);
        if (it != c.blocks.end()) {
            void* p = it->second;
            c.blocks.erase(it);
            c.bytes -= bytes;
            return p;
        }
    }
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
}

void rawFree(void* p, std::size_t bytes) {
    if (bytes < kMapThreshold) {
        std::free(p);
        return;
    }
    BlockCache& c = blockCache();
    std::unique_lock<std::mutex> lk(c.m);
    if (bytes <= kCacheLimit - c.bytes) {  // c.bytes <= kCacheLimit always: no wrap
        c.blocks.emplace(bytes, p);
        c.bytes += bytes;
        return;
    }
    lk.unlock();
    munmap(p, bytes);
}

struct Block {
    std::size_t size;
    uint64_t serial;
};

struct Heap {
    std::mutex m;
    std::map<const char*, Block> live;  // base -> block, ordered for range lookups
    std::set<const void*> freed;        // recently freed bases, for a better message
    uint64_t nextSerial = 1;
};

Heap& heap() {
    static Heap* h = new Heap();  // outlives static destructors of user programs
    return *h;
}

enum class Lifecycle { NeverInitialized, Initialized, Finalized };
std::atomic<Lifecycle> gLifecycle{Lifecycle::NeverInitialized};

}  // namespace

bool markInitialized() { return gLifecycle.exchange(Lifecycle::Initialized) != Lifecycle::Initialized; }

bool markFinalized() {
    Lifecycle expected = Lifecycle::Initialized;
    return gLifecycle.compare_exchange_strong(expected, Lifecycle::Finalized);
}

void requireRuntime(int32_t code) {
    if (gLifecycle.load() == Lifecycle::Finalized)
        fail(code, "the runtime was finalized (aclFinalize); call aclInit before using the device again");
}

void* allocate(std::size_t bytes) {
    if (bytes == 0) fail(status::kAclInvalidParam, "size must be greater than 0");
    const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    if (rounded < bytes) fail(status::kAclBadAlloc, Msg() << "cannot allocate " << bytes << " bytes");
    void* p = rawAllocate(rounded);
    if (!p) fail(status::kAclBadAlloc, Msg() << "cannot allocate " << bytes << " bytes: out of memory");
    Heap& h = heap();
    std::lock_guard<std::mutex> lk(h.m);
    h.live[static_cast<const char*>(p)] =
        Block{bytes, h.nextSerial++};  // the requested size: overruns past it are errors
    h.freed.erase(p);
    return p;
}

void release(void* p) {
    if (!p) fail(status::kAclInvalidParam, "devPtr is null");
    Heap& h = heap();
    std::size_t size = 0;
    {
        std::lock_guard<std::mutex> lk(h.m);
        auto it = h.live.find(static_cast<const char*>(p));
        if (it == h.live.end()) {
            if (h.freed.count(p))
                fail(status::kAclInvalidParam, Msg() << "devPtr " << p << " was already freed (double free)");
            fail(status::kAclInvalidParam,
                 Msg() << "devPtr " << p << " was not returned by aclrtMalloc (or is not the start of an allocation)");
        }
        size = it->second.size;
        h.live.erase(it);
        if (h.freed.size() > 100000) h.freed.clear();
        h.freed.insert(p);
    }
    rawFree(p, (size + kAlignment - 1) / kAlignment * kAlignment);
}

Region find(const void* p) {
    Heap& h = heap();
    std::lock_guard<std::mutex> lk(h.m);
    const char* c = static_cast<const char*>(p);
    auto it = h.live.upper_bound(c);
    if (it == h.live.begin()) return {};
    --it;
    // Compare offsets, not pointers: base + size never overflows, p - base is in range here.
    const auto offset = static_cast<std::size_t>(c - it->first);
    if (c >= it->first && offset < it->second.size) return {it->first, it->second.size, it->second.serial};
    return {};
}

std::size_t Region::bytesFrom(const void* p) const {
    const auto at = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(base);
    if (!base || at < b || at - b >= size) return 0;
    return size - (at - b);
}

bool containsRange(const void* p, std::size_t bytes) {
    const Region r = find(p);
    return r.base && bytes <= r.bytesFrom(p);
}

}  // namespace opscope::device
