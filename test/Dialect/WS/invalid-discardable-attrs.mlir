// RUN: fmha-opt %s -split-input-file -verify-diagnostics

// The discardable attributes of the ws dialect (WSDialect.td), verified
// wherever they appear: one case per rule, then each attribute where it
// belongs.

// An attribute the dialect does not declare.
// expected-error @+1 {{'func.func' op has 'ws.pair', which is not an attribute of the ws dialect}}
func.func @unknown() attributes {ws.pair} {
  return
}

// -----

// Kernel attributes sit on functions.
func.func @multicast_on_op() {
  // expected-error @+1 {{'arith.constant' op may not hold 'ws.multicast': it sits on a kernel}}
  %c0 = arith.constant {ws.multicast} 0 : i32
  return
}

// -----

// expected-error @+1 {{'func.func' op 'ws.cta_pair' must be a unit attribute, got true}}
func.func @cta_pair_not_unit() attributes {ws.cta_pair = true} {
  return
}

// -----

// expected-error @+1 {{'func.func' op may not hold 'ws.leader_guarded': it sits on ws.mbarrier_arrive with leader, ws.tma_load_mbarrier and ws.tcgen05_mma}}
func.func @leader_guarded_on_kernel() attributes {ws.leader_guarded} {
  return
}

// -----

func.func @leader_guarded_arrival_by_threads(%i: i32) {
  %b = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
  // expected-error @+1 {{'ws.mbarrier_arrive' op may not hold 'ws.leader_guarded'}}
  ws.mbarrier_arrive %b[%i] {ws.leader_guarded} : !ws.mbarrier<2>
  return
}

// -----

// expected-error @+1 {{'func.func' op may not hold 'ws.async_wgmma': it sits on tile.dot}}
func.func @async_wgmma_on_kernel() attributes {ws.async_wgmma} {
  return
}

// -----

func.func @ring_value(%i: i32, %p: i32) {
  %b = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  // expected-error @+1 {{'ws.mbarrier_wait' op 'ws.ring' must be "full" or "empty", got "half"}}
  ws.mbarrier_wait %b[%i], %p {ws.ring = "half"} : !ws.mbarrier<2>
  return
}

// -----

func.func @ring_on_arrive(%i: i32) {
  %b = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  // expected-error @+1 {{'ws.mbarrier_arrive' op may not hold 'ws.ring': it sits on ws.mbarrier_wait}}
  ws.mbarrier_arrive %b[%i] {ws.ring = "full"} : !ws.mbarrier<2>
  return
}

// -----

func.func @channel_negative(%i: i32, %p: i32) {
  %b = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  // expected-error @+1 {{'ws.mbarrier_wait' op 'ws.channel' must be an integer from 0 to 2147483647, got -1 : i32}}
  ws.mbarrier_wait %b[%i], %p {ws.channel = -1 : i32} : !ws.mbarrier<2>
  return
}

// -----

func.func @drain_not_unit(%i: i32, %p: i32) {
  %b = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  // expected-error @+1 {{'ws.mbarrier_wait' op 'ws.drain' must be a unit attribute, got 1 : i64}}
  ws.mbarrier_wait %b[%i], %p {ws.drain = 1} : !ws.mbarrier<2>
  return
}

// -----

func.func @hang_report_not_symbol(%i: i32, %p: i32) {
  %b = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  // expected-error @+1 {{'ws.mbarrier_wait' op 'ws.hang_report' must be a symbol reference, got "report"}}
  ws.mbarrier_wait %b[%i], %p {ws.hang_report = "report"} : !ws.mbarrier<2>
  return
}

// -----

func.func @wait_timeout_zero(%i: i32, %p: i32) {
  %b = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  // expected-error @+1 {{'ws.mbarrier_wait' op 'ws.wait_timeout' must be an integer from 1 to 9223372036854775807, got 0 : i64}}
  ws.mbarrier_wait %b[%i], %p {ws.wait_timeout = 0 : i64} : !ws.mbarrier<2>
  return
}

// -----

// expected-error @+1 {{'func.func' op may not hold 'ws.hang_reports': it sits on gpu.module}}
func.func @hang_reports_on_kernel() attributes {ws.hang_reports} {
  return
}

// -----

// expected-error @+1 {{'func.func' op may not hold 'ws.protocol_verified': it sits on ws.warp_specialize}}
func.func @protocol_verified_on_kernel() attributes {ws.protocol_verified} {
  return
}

// -----

// expected-error @+1 {{'func.func' op may not hold 'ws.phases_verified': it sits on ws.warp_specialize}}
func.func @phases_verified_on_kernel() attributes {ws.phases_verified} {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'ws.smem_bytes' must be an integer from 0 to 2147483647, got 4294967296 : i64}}
func.func @smem_bytes_too_large() attributes {ws.smem_bytes = 4294967296 : i64} {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'ws.num_threads' must be a multiple of 32 from 32 to 1024, got 100 : i64}}
func.func @num_threads_not_warps() attributes {ws.num_threads = 100 : i64} {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'ws.num_threads' must be a multiple of 32 from 32 to 1024, got 2048 : i64}}
func.func @num_threads_too_many() attributes {ws.num_threads = 2048 : i64} {
  return
}

// -----

// Every attribute where it belongs.
gpu.module @kernels attributes {ws.hang_reports} {
  gpu.func @kernel(%i: i32, %p: i32) kernel attributes {ws.cta_pair, ws.smem_bytes = 1024 : i64, ws.num_threads = 128 : i64} {
    %b = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
    ws.mbarrier_wait %b[%i], %p {ws.ring = "full", ws.channel = 0 : i32, ws.drain, ws.hang_report = @report, ws.wait_timeout = 1000 : i64} : !ws.mbarrier<2>
    ws.mbarrier_arrive %b[%i] leader {ws.leader_guarded, ws.cta_pair} : !ws.mbarrier<2>
    ws.warp_specialize attributes {ws.protocol_verified, ws.phases_verified} {
      ws.role "r" warps 4 {
      }
    }
    gpu.return
  }
  gpu.func @other() kernel attributes {ws.multicast} {
    gpu.return
  }
}

// -----

// The role assignment (RoleAssignment.h): its types and places here; its
// indices and counts, which depend on the kernel, in ws-partition-roles.
// expected-error @+1 {{'func.func' op 'ws.channel_stages' must be an i32 array, got [2]}}
func.func @channel_stages_not_i32_array() attributes {ws.channel_stages = [2]} {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'ws.roles' must be an array, got "p"}}
func.func @roles_not_array() attributes {ws.roles = "p"} {
  return
}

// -----

func.func @partition_outputs_on_op() {
  // expected-error @+1 {{'arith.constant' op may not hold 'ws.partition_outputs': it sits on scf.for}}
  %c0 = arith.constant {ws.partition_outputs = []} 0 : i32
  return
}

// -----

func.func @partition_not_i32_array() {
  // expected-error @+1 {{'arith.constant' op 'ws.partition' must be an i32 array, got 0 : i64}}
  %c0 = arith.constant {ws.partition = 0} 0 : i32
  return
}

// -----

func.func @load_channel_on_op() {
  // expected-error @+1 {{'arith.constant' op may not hold 'ws.load_channel': it sits on tile.load}}
  %c0 = arith.constant {ws.load_channel = 0 : i32} 0 : i32
  return
}

// -----

// expected-error @+1 {{'func.func' op may not hold 'ws.multicast_load': it sits on tile.load}}
func.func @multicast_load_on_kernel() attributes {ws.multicast_load} {
  return
}

// -----

// A main loop taken as one turn (ws-assign-roles, for ws-schedule-ping-pong).
func.func @turn_on_loop(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {ws.turn}
  return
}

// -----

func.func @output_channels_on_op() {
  // expected-error @+1 {{'arith.constant' op may not hold 'ws.output_channels': it sits on scf.for}}
  %c0 = arith.constant {ws.output_channels = array<i32: 1>} 0 : i32
  return
}

// -----

// expected-error @+1 {{'func.func' op may not hold 'ws.turn': it sits on scf.for}}
func.func @turn_on_kernel() attributes {ws.turn} {
  return
}

// -----

func.func @turn_not_unit(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'scf.for' op 'ws.turn' must be a unit attribute, got 1 : i64}}
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {ws.turn = 1}
  return
}

// -----

func.func @output_channels_not_i32_array(%n: index) {
  // expected-error @+1 {{'scf.for' op 'ws.output_channels' must be an i32 array, got [1]}}
  scf.for %i = %n to %n step %n {
  } {ws.output_channels = [1]}
  return
}

// -----

func.func @result_channel_no_result() {
  // expected-error @+1 {{'func.return' op may not hold 'ws.result_channel': it sits on an op with one result}}
  return {ws.result_channel = 0 : i32}
}

// -----

func.func @result_channel_not_integer() {
  // expected-error @+1 {{'arith.constant' op 'ws.result_channel' must be an integer from}}
  %c0 = arith.constant {ws.result_channel = "s"} 0 : i32
  return
}

// -----

// expected-error @+1 {{'func.func' op 'ws.channel_aliases' must be an i32 array, got [1]}}
func.func @channel_aliases_not_i32_array() attributes {ws.channel_aliases = [1]} {
  return
}

// -----

func.func @channel_aliases_on_op() {
  // expected-error @+1 {{'arith.constant' op may not hold 'ws.channel_aliases': it sits on a kernel}}
  %c0 = arith.constant {ws.channel_aliases = array<i32: -1>} 0 : i32
  return
}
