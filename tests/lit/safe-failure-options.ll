; An unknown or malformed option value is a clear error and a non-zero exit.
; RUN: not %llc_plugin -nvregalloc-coalesce=sometimes %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODE
; RUN: not %llc_plugin -nvregalloc-color=paint %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=COLOR
; RUN: not %llc_plugin -nvregalloc-k=0 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=K
; RUN: not %llc_plugin -nvregalloc-coalesce-factor=-0.5 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FACTOR
; RUN: not %llc_plugin -nvregalloc-copy-limit=many %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
; RUN: not %llc_plugin -nvregalloc-no-such-option %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
; MODE:    for the --nvregalloc-coalesce option: Cannot find option named 'sometimes'!
; COLOR:   for the --nvregalloc-color option: Cannot find option named 'paint'!
; K:       for the --nvregalloc-k option: '0' must be greater than zero
; FACTOR:  for the --nvregalloc-coalesce-factor option: '-0.5' must be greater than zero
; LIMIT:   for the --nvregalloc-copy-limit option: '{{.*}}many' value invalid for
; UNKNOWN: Unknown command line argument '-nvregalloc-no-such-option'

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %p, i32 %a) {
  %x = add i32 %a, 7
  store i32 %x, ptr addrspace(1) %p
  ret void
}
