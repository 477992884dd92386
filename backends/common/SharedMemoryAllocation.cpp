//===- SharedMemoryAllocation.cpp - buffers placed by liveness ------------===//
//
// Each tile.local_alloc gets a byte offset in the kernel's shared memory.
// A buffer lives from its allocation to its last use (through the views made
// of it, and those loops carry and branches yield), or to its
// local_dealloc; uses inside a loop or branch keep it alive for the whole
// of that op (a tile.warp_specialize's: see lastUse). Buffers whose lives
// overlap get disjoint bytes, placed largest first at the lowest offset
// that fits. Ops that buffers live across (a loop's layout conversions,
// say) get their scratch after those buffers; elsewhere scratch starts at
// 0.
//
//===----------------------------------------------------------------------===//

#include "backends/common/Lowering.h"
#include "backends/common/Passes.h"

#include "ir/Layout/LayoutAttrs.h"
#include "ir/Tile/TileOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Buffers start on 128-byte boundaries, as swizzled layouts assume; an
/// NVMMA layout's on a whole repeat of its swizzle (8 rows of it: 1024
/// bytes for 128-byte rows), since wgmma and TMA swizzle the address bits.
int64_t bufferAlignment(MemDescType type) {
  if (auto nvmma = dyn_cast<NVMMASharedLayoutAttr>(type.getEncoding()))
    return std::max<int64_t>(128, 8 * nvmma.getSwizzlingByteWidth());
  return 128;
}

int64_t alignTo(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

struct Buffer {
  LocalAllocOp alloc;
  int64_t bytes = 0;
  /// The ops (numbered in program order) the buffer lives across.
  int64_t first = 0, last = 0;
  int64_t offset = 0;

  bool overlaps(const Buffer &other) const {
    return first <= other.last && other.first <= last;
  }
};

/// The tile.warp_specialize of the partition `op` is in; null where none.
WarpSpecializeOp partitionOf(Operation *op) {
  auto [specialized, index] = WarpSpecializeOp::regionOf(op->getParentRegion());
  return index ? specialized : WarpSpecializeOp();
}

/// The bytes of a tile.local_alloc's buffer (its type's shape is its
/// allocation's).
int64_t bufferBytes(MemDescType type) {
  return getBufferElements(type) *
         std::max<int64_t>(1,
                           type.getElementType().getIntOrFloatBitWidth() / 8);
}

void allocateFunction(func::FuncOp func, int64_t &buffersEnd,
                      DenseMap<Operation *, int64_t> &scratchBases) {
  // Program order: each op's number, and the last number inside it.
  DenseMap<Operation *, std::pair<int64_t, int64_t>> order;
  int64_t next = 0;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    order[op] = {next, next};
    ++next;
  });
  func.walk<WalkOrder::PostOrder>([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (!block.empty())
          order[op].second =
              std::max(order[op].second, order[&block.back()].second);
  });

  // A use inside a tile.warp_specialize (`there`, in the allocation's
  // block): in its default region where it is there, else at its start
  // (the partitions start with the default region; a buffer they share
  // with it is the default region's to free).
  auto lastUse = [&](Operation *there, Operation *user) {
    auto specialized = dyn_cast<WarpSpecializeOp>(there);
    if (!specialized || there == user)
      return order[there].second;
    Region &computing = specialized.getDefaultRegion();
    if (!computing.isAncestor(user->getParentRegion()))
      return order[there].first;
    return order[computing.front().findAncestorOpInBlock(*user)].second;
  };

  SmallVector<Buffer> buffers;
  func.walk([&](LocalAllocOp alloc) {
    Buffer buffer{alloc, bufferBytes(alloc.getType())};
    buffer.first = buffer.last = order[alloc].first;
    Block *block = alloc->getBlock();
    SmallVector<Value> views{alloc.getResult()};
    DenseSet<Value> seen;
    while (!views.empty()) {
      Value view = views.pop_back_val();
      if (!seen.insert(view).second)
        continue;
      for (OpOperand &use : view.getUses()) {
        Operation *user = use.getOwner();
        if (isSharedMemoryView(user))
          views.push_back(user->getResult(0));
        // Views carried by loops and yielded by branches.
        if (auto loop = dyn_cast<scf::ForOp>(user)) {
          if (OpResult result = loop.getTiedLoopResult(&use)) {
            views.push_back(result);
            views.push_back(loop.getTiedLoopRegionIterArg(&use));
          }
        }
        if (isa<scf::YieldOp>(user) && user->getParentOp()->getNumResults())
          views.push_back(
              user->getParentOp()->getResult(use.getOperandNumber()));
        if (Operation *there = block->findAncestorOpInBlock(*user))
          buffer.last = std::max(buffer.last, lastUse(there, user));
      }
    }
    // Partitions run alongside the default region: their own buffers live
    // across the whole op.
    if (WarpSpecializeOp specialized = partitionOf(alloc))
      buffer.first = order[specialized].first,
      buffer.last = std::max(buffer.last, order[specialized].second);
    buffers.push_back(buffer);
  });

  // Largest first, each at the lowest offset clear of the placed buffers it
  // overlaps.
  SmallVector<Buffer *> bySize;
  for (Buffer &buffer : buffers)
    bySize.push_back(&buffer);
  llvm::stable_sort(bySize, [](Buffer *a, Buffer *b) {
    return a->bytes > b->bytes;
  });
  SmallVector<Buffer *> placed;
  for (Buffer *buffer : bySize) {
    int64_t offset = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (Buffer *other : placed)
        if (buffer->overlaps(*other) && offset < other->offset + other->bytes &&
            other->offset < offset + buffer->bytes) {
          offset = alignTo(other->offset + other->bytes,
                           bufferAlignment(buffer->alloc.getType()));
          moved = true;
        }
    }
    buffer->offset = offset;
    placed.push_back(buffer);
    buffersEnd = std::max(buffersEnd, offset + buffer->bytes);
  }

  auto i32 = IntegerType::get(func.getContext(), 32);
  for (Buffer &buffer : buffers)
    buffer.alloc->setAttr(kBufferOffsetAttr,
                          IntegerAttr::get(i32, buffer.offset));
  if (buffers.empty())
    return;
  func.walk([&](Operation *op) {
    // An op of a partition may run at any time in its op's life.
    int64_t first = order[op].first, last = first, end = 0;
    if (WarpSpecializeOp specialized = partitionOf(op))
      std::tie(first, last) = order[specialized];
    for (Buffer &buffer : buffers)
      if (buffer.first <= last && first <= buffer.last)
        end = std::max(end, buffer.offset + buffer.bytes);
    if (end)
      scratchBases[op] = alignTo(end, 16);
  });
}

} // namespace

SharedAllocation mlir::tile::allocateSharedMemory(ModuleOp module) {
  SharedAllocation allocation;
  module.walk([&](func::FuncOp func) {
    allocateFunction(func, allocation.buffersEnd, allocation.scratchBases);
  });
  allocation.buffersEnd = alignTo(allocation.buffersEnd, 16);
  return allocation;
}

namespace mlir::tile {
#define GEN_PASS_DEF_TILEALLOCATESHAREDMEMORYPASS
#include "backends/common/Passes.h.inc"
} // namespace mlir::tile

namespace {
struct AllocateSharedMemoryPass
    : mlir::tile::impl::TileAllocateSharedMemoryPassBase<
          AllocateSharedMemoryPass> {
  void runOnOperation() override { (void)allocateSharedMemory(getOperation()); }
};
} // namespace
