; REQUIRES: cuda
; The HTML report takes occupancy from ptxas when the PTX lies beside the
; JSON: ptxas's registers per thread and the warps per SM they allow (sm_90:
; 65,536 registers in units of 256 per warp, at most 64 warps), with the
; figure from the PTX colors shown as the lower bound it is.
; RUN: rm -rf %t.dir && mkdir -p %t.dir
; RUN: %llc_plugin -nvregalloc-color=rename %s -o %t.dir/k.ptx -nvregalloc-report=%t.dir/k.json
; RUN: %python %root/scripts/report --ptxas=%ptxas %t.dir/k.json -o %t.dir/report.html
; RUN: FileCheck %s < %t.dir/report.html
; CHECK: <h3>k</h3>
; CHECK: <p>ptxas: {{[0-9]+}} registers per thread, 64 warps per SM (100%)</p>
; CHECK: <p>from the PTX colors (ptxas re-allocates): at least {{[0-9]+}} registers per thread

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %p, i32 %a) {
  %x = mul i32 %a, %a
  %y = add i32 %x, 7
  store i32 %y, ptr addrspace(1) %p
  ret void
}
