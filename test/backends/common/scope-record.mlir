// Scope records (tessera.profiler.language) lowered for NVIDIA and AMD
// GPUs, with the time in nanoseconds (NVIDIA's global timer; AMD's 100 MHz real-time
// counter times 10), a count of the thread's records in a stack variable,
// and a store of the (scope << 1 | end | count << 32, time) pair by the
// first lane of each of the first 4 warps, to slot
// ((program * 4 + warp) * 64 + count % 64).
// RUN: tessera-opt %s -tile-assign-layouts -tile-nvidia-to-llvm -canonicalize -cse | FileCheck %s --check-prefixes=CHECK,NVIDIA
// RUN: tessera-opt %s -tile-assign-layouts=warp-size=64 -tile-amd-to-llvm=warp-size=64 -canonicalize -cse | FileCheck %s --check-prefixes=CHECK,AMD
// RUN: tessera-compile --target=sm_90 --emit=asm %s | FileCheck %s --check-prefix=PTX
// RUN: tessera-compile --target=gfx942 --emit=asm %s | FileCheck %s --check-prefix=GFX942
// RUN: tessera-compile --target=gfx1100 --emit=asm %s | FileCheck %s --check-prefix=GFX1100

// CHECK-LABEL: llvm.func @records
// CHECK-DAG: %[[ENTER:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-DAG: %[[LEAVE:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-DAG: %[[LAST:.*]] = llvm.mlir.constant(63 : i32) : i32
// NVIDIA: %[[COUNTER:.*]] = llvm.alloca %{{.*}} x i32 : (i32) -> !llvm.ptr
// AMD: %[[COUNTER:.*]] = llvm.alloca %{{.*}} x i32 : (i32) -> !llvm.ptr<5>
// CHECK-NEXT: llvm.store %{{.*}}, %[[COUNTER]] : i32
// NVIDIA: %[[TIME:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// AMD: %[[TICKS:.*]] = llvm.call_intrinsic "llvm.readsteadycounter"() : () -> i64
// AMD-NEXT: %[[TIME:.*]] = llvm.mul %[[TICKS]], %{{.*}} : i64
// CHECK-NEXT: %[[COUNT:.*]] = llvm.load %[[COUNTER]] : !llvm.ptr{{.*}} -> i32
// CHECK-NEXT: %[[NEXT:.*]] = llvm.add %[[COUNT]], %{{.*}} : i32
// CHECK-NEXT: llvm.store %[[NEXT]], %[[COUNTER]]
// CHECK: llvm.and %[[COUNT]], %[[LAST]] : i32
// CHECK: %[[TAG:.*]] = llvm.or %{{.*}}, %[[ENTER]] : i64
// CHECK: %[[RECORD:.*]] = llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
// CHECK: %[[AT:.*]] = llvm.getelementptr %[[RECORD]][1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64
// CHECK: llvm.cond_br
// CHECK: llvm.store %[[TAG]], %[[RECORD]] {alignment = 16 : i64} : i64, !llvm.ptr<1>
// CHECK-NEXT: llvm.store %[[TIME]], %[[AT]] {alignment = 8 : i64} : i64, !llvm.ptr<1>
// CHECK: llvm.or %{{.*}}, %[[LEAVE]] : i64

// PTX: mov.u64 {{.*}}, %globaltimer;
// GFX942: s_memrealtime
// GFX1100: s_sendmsg_rtn_b64 {{.*}}sendmsg(MSG_RTN_GET_REALTIME)
func.func @records(%buffer: !tile.ptr<i64>, %x: !tile.ptr<f32>) {
  tile.scope_record %buffer {scope = 1 : i32, slots = 64 : i32, warps = 4 : i32} : !tile.ptr<i64>
  %one = arith.constant 1.0 : f32
  tile.store %x, %one : !tile.ptr<f32>
  tile.scope_record %buffer {end, scope = 1 : i32, slots = 64 : i32, warps = 4 : i32} : !tile.ptr<i64>
  return
}
