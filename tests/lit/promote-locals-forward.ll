; nvregalloc-promote-locals-forward (part of nvregalloc-promote-locals,
; after the function's scalar optimizations): in a block, a load from a local
; at a constant offset takes the value the last store there wrote, however
; far apart they are. GVN forwards only within the 100 instructions memdep
; scans back, and a fully unrolled loop over a matrix puts stores and loads
; further apart (HeCBench's kalman: 10 loads); EarlyCSE ran before the
; unroller, and SROA cannot split a local that is also indexed by data.
; Here 16 stores and their loads are 200 instructions apart.
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-forward %s -S -o - | FileCheck %s
; RUN: %opt_plugin -passes=nvregalloc-promote-locals-forward -nvregalloc-promote-locals=false %s -S -o - \
; RUN:   | FileCheck %s --check-prefix=OFF
; RUN: opt -passes=gvn %s -S -o - | FileCheck %s --check-prefix=GVN

target triple = "nvptx64-nvidia-cuda"

declare void @use(ptr)

; CHECK-LABEL: define ptx_kernel void @far(
; CHECK-NOT:   load float, ptr %a.
; CHECK:       %d = load float, ptr %dyn
; CHECK:       %sum = fadd float %s.15, %d
; OFF-LABEL:   define ptx_kernel void @far(
; OFF:         %r.0 = load float, ptr %a.0
; GVN-LABEL:   define ptx_kernel void @far(
; GVN:         %r.0 = load float, ptr %a{{(\.0)?}},
define ptx_kernel void @far(ptr %in, ptr %out, float %x, i32 %k) {
  %a = alloca [16 x float], align 4
  %in.0 = getelementptr inbounds float, ptr %in, i64 0
  %v.0 = load float, ptr %in.0, align 4
  %a.0 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 0
  store float %v.0, ptr %a.0, align 4
  %in.1 = getelementptr inbounds float, ptr %in, i64 1
  %v.1 = load float, ptr %in.1, align 4
  %a.1 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 1
  store float %v.1, ptr %a.1, align 4
  %in.2 = getelementptr inbounds float, ptr %in, i64 2
  %v.2 = load float, ptr %in.2, align 4
  %a.2 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 2
  store float %v.2, ptr %a.2, align 4
  %in.3 = getelementptr inbounds float, ptr %in, i64 3
  %v.3 = load float, ptr %in.3, align 4
  %a.3 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 3
  store float %v.3, ptr %a.3, align 4
  %in.4 = getelementptr inbounds float, ptr %in, i64 4
  %v.4 = load float, ptr %in.4, align 4
  %a.4 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 4
  store float %v.4, ptr %a.4, align 4
  %in.5 = getelementptr inbounds float, ptr %in, i64 5
  %v.5 = load float, ptr %in.5, align 4
  %a.5 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 5
  store float %v.5, ptr %a.5, align 4
  %in.6 = getelementptr inbounds float, ptr %in, i64 6
  %v.6 = load float, ptr %in.6, align 4
  %a.6 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 6
  store float %v.6, ptr %a.6, align 4
  %in.7 = getelementptr inbounds float, ptr %in, i64 7
  %v.7 = load float, ptr %in.7, align 4
  %a.7 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 7
  store float %v.7, ptr %a.7, align 4
  %in.8 = getelementptr inbounds float, ptr %in, i64 8
  %v.8 = load float, ptr %in.8, align 4
  %a.8 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 8
  store float %v.8, ptr %a.8, align 4
  %in.9 = getelementptr inbounds float, ptr %in, i64 9
  %v.9 = load float, ptr %in.9, align 4
  %a.9 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 9
  store float %v.9, ptr %a.9, align 4
  %in.10 = getelementptr inbounds float, ptr %in, i64 10
  %v.10 = load float, ptr %in.10, align 4
  %a.10 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 10
  store float %v.10, ptr %a.10, align 4
  %in.11 = getelementptr inbounds float, ptr %in, i64 11
  %v.11 = load float, ptr %in.11, align 4
  %a.11 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 11
  store float %v.11, ptr %a.11, align 4
  %in.12 = getelementptr inbounds float, ptr %in, i64 12
  %v.12 = load float, ptr %in.12, align 4
  %a.12 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 12
  store float %v.12, ptr %a.12, align 4
  %in.13 = getelementptr inbounds float, ptr %in, i64 13
  %v.13 = load float, ptr %in.13, align 4
  %a.13 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 13
  store float %v.13, ptr %a.13, align 4
  %in.14 = getelementptr inbounds float, ptr %in, i64 14
  %v.14 = load float, ptr %in.14, align 4
  %a.14 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 14
  store float %v.14, ptr %a.14, align 4
  %in.15 = getelementptr inbounds float, ptr %in, i64 15
  %v.15 = load float, ptr %in.15, align 4
  %a.15 = getelementptr inbounds [16 x float], ptr %a, i64 0, i64 15
  store float %v.15, ptr %a.15, align 4
  %t.0 = fmul float %x, 1.500000e+00
  %t.1 = fmul float %t.0, 1.500000e+00
  %t.2 = fmul float %t.1, 1.500000e+00
  %t.3 = fmul float %t.2, 1.500000e+00
  %t.4 = fmul float %t.3, 1.500000e+00
  %t.5 = fmul float %t.4, 1.500000e+00
  %t.6 = fmul float %t.5, 1.500000e+00
  %t.7 = fmul float %t.6, 1.500000e+00
  %t.8 = fmul float %t.7, 1.500000e+00
  %t.9 = fmul float %t.8, 1.500000e+00
  %t.10 = fmul float %t.9, 1.500000e+00
  %t.11 = fmul float %t.10, 1.500000e+00
  %t.12 = fmul float %t.11, 1.500000e+00
  %t.13 = fmul float %t.12, 1.500000e+00
  %t.14 = fmul float %t.13, 1.500000e+00
  %t.15 = fmul float %t.14, 1.500000e+00
  %t.16 = fmul float %t.15, 1.500000e+00
  %t.17 = fmul float %t.16, 1.500000e+00
  %t.18 = fmul float %t.17, 1.500000e+00
  %t.19 = fmul float %t.18, 1.500000e+00
  %t.20 = fmul float %t.19, 1.500000e+00
  %t.21 = fmul float %t.20, 1.500000e+00
  %t.22 = fmul float %t.21, 1.500000e+00
  %t.23 = fmul float %t.22, 1.500000e+00
  %t.24 = fmul float %t.23, 1.500000e+00
  %t.25 = fmul float %t.24, 1.500000e+00
  %t.26 = fmul float %t.25, 1.500000e+00
  %t.27 = fmul float %t.26, 1.500000e+00
  %t.28 = fmul float %t.27, 1.500000e+00
  %t.29 = fmul float %t.28, 1.500000e+00
  %t.30 = fmul float %t.29, 1.500000e+00
  %t.31 = fmul float %t.30, 1.500000e+00
  %t.32 = fmul float %t.31, 1.500000e+00
  %t.33 = fmul float %t.32, 1.500000e+00
  %t.34 = fmul float %t.33, 1.500000e+00
  %t.35 = fmul float %t.34, 1.500000e+00
  %t.36 = fmul float %t.35, 1.500000e+00
  %t.37 = fmul float %t.36, 1.500000e+00
  %t.38 = fmul float %t.37, 1.500000e+00
  %t.39 = fmul float %t.38, 1.500000e+00
  %t.40 = fmul float %t.39, 1.500000e+00
  %t.41 = fmul float %t.40, 1.500000e+00
  %t.42 = fmul float %t.41, 1.500000e+00
  %t.43 = fmul float %t.42, 1.500000e+00
  %t.44 = fmul float %t.43, 1.500000e+00
  %t.45 = fmul float %t.44, 1.500000e+00
  %t.46 = fmul float %t.45, 1.500000e+00
  %t.47 = fmul float %t.46, 1.500000e+00
  %t.48 = fmul float %t.47, 1.500000e+00
  %t.49 = fmul float %t.48, 1.500000e+00
  %t.50 = fmul float %t.49, 1.500000e+00
  %t.51 = fmul float %t.50, 1.500000e+00
  %t.52 = fmul float %t.51, 1.500000e+00
  %t.53 = fmul float %t.52, 1.500000e+00
  %t.54 = fmul float %t.53, 1.500000e+00
  %t.55 = fmul float %t.54, 1.500000e+00
  %t.56 = fmul float %t.55, 1.500000e+00
  %t.57 = fmul float %t.56, 1.500000e+00
  %t.58 = fmul float %t.57, 1.500000e+00
  %t.59 = fmul float %t.58, 1.500000e+00
  %t.60 = fmul float %t.59, 1.500000e+00
  %t.61 = fmul float %t.60, 1.500000e+00
  %t.62 = fmul float %t.61, 1.500000e+00
  %t.63 = fmul float %t.62, 1.500000e+00
  %t.64 = fmul float %t.63, 1.500000e+00
  %t.65 = fmul float %t.64, 1.500000e+00
  %t.66 = fmul float %t.65, 1.500000e+00
  %t.67 = fmul float %t.66, 1.500000e+00
  %t.68 = fmul float %t.67, 1.500000e+00
  %t.69 = fmul float %t.68, 1.500000e+00
  %t.70 = fmul float %t.69, 1.500000e+00
  %t.71 = fmul float %t.70, 1.500000e+00
  %t.72 = fmul float %t.71, 1.500000e+00
  %t.73 = fmul float %t.72, 1.500000e+00
  %t.74 = fmul float %t.73, 1.500000e+00
  %t.75 = fmul float %t.74, 1.500000e+00
  %t.76 = fmul float %t.75, 1.500000e+00
  %t.77 = fmul float %t.76, 1.500000e+00
  %t.78 = fmul float %t.77, 1.500000e+00
  %t.79 = fmul float %t.78, 1.500000e+00
  %t.80 = fmul float %t.79, 1.500000e+00
  %t.81 = fmul float %t.80, 1.500000e+00
  %t.82 = fmul float %t.81, 1.500000e+00
  %t.83 = fmul float %t.82, 1.500000e+00
  %t.84 = fmul float %t.83, 1.500000e+00
  %t.85 = fmul float %t.84, 1.500000e+00
  %t.86 = fmul float %t.85, 1.500000e+00
  %t.87 = fmul float %t.86, 1.500000e+00
  %t.88 = fmul float %t.87, 1.500000e+00
  %t.89 = fmul float %t.88, 1.500000e+00
  %t.90 = fmul float %t.89, 1.500000e+00
  %t.91 = fmul float %t.90, 1.500000e+00
  %t.92 = fmul float %t.91, 1.500000e+00
  %t.93 = fmul float %t.92, 1.500000e+00
  %t.94 = fmul float %t.93, 1.500000e+00
  %t.95 = fmul float %t.94, 1.500000e+00
  %t.96 = fmul float %t.95, 1.500000e+00
  %t.97 = fmul float %t.96, 1.500000e+00
  %t.98 = fmul float %t.97, 1.500000e+00
  %t.99 = fmul float %t.98, 1.500000e+00
  %t.100 = fmul float %t.99, 1.500000e+00
  %t.101 = fmul float %t.100, 1.500000e+00
  %t.102 = fmul float %t.101, 1.500000e+00
  %t.103 = fmul float %t.102, 1.500000e+00
  %t.104 = fmul float %t.103, 1.500000e+00
  %t.105 = fmul float %t.104, 1.500000e+00
  %t.106 = fmul float %t.105, 1.500000e+00
  %t.107 = fmul float %t.106, 1.500000e+00
  %t.108 = fmul float %t.107, 1.500000e+00
  %t.109 = fmul float %t.108, 1.500000e+00
  %t.110 = fmul float %t.109, 1.500000e+00
  %t.111 = fmul float %t.110, 1.500000e+00
  %t.112 = fmul float %t.111, 1.500000e+00
  %t.113 = fmul float %t.112, 1.500000e+00
  %t.114 = fmul float %t.113, 1.500000e+00
  %t.115 = fmul float %t.114, 1.500000e+00
  %t.116 = fmul float %t.115, 1.500000e+00
  %t.117 = fmul float %t.116, 1.500000e+00
  %t.118 = fmul float %t.117, 1.500000e+00
  %t.119 = fmul float %t.118, 1.500000e+00
  %t.120 = fmul float %t.119, 1.500000e+00
  %t.121 = fmul float %t.120, 1.500000e+00
  %t.122 = fmul float %t.121, 1.500000e+00
  %t.123 = fmul float %t.122, 1.500000e+00
  %t.124 = fmul float %t.123, 1.500000e+00
  %t.125 = fmul float %t.124, 1.500000e+00
  %t.126 = fmul float %t.125, 1.500000e+00
  %t.127 = fmul float %t.126, 1.500000e+00
  %t.128 = fmul float %t.127, 1.500000e+00
  %t.129 = fmul float %t.128, 1.500000e+00
  %t.130 = fmul float %t.129, 1.500000e+00
  %t.131 = fmul float %t.130, 1.500000e+00
  %t.132 = fmul float %t.131, 1.500000e+00
  %t.133 = fmul float %t.132, 1.500000e+00
  %t.134 = fmul float %t.133, 1.500000e+00
  %t.135 = fmul float %t.134, 1.500000e+00
  %t.136 = fmul float %t.135, 1.500000e+00
  %t.137 = fmul float %t.136, 1.500000e+00
  %t.138 = fmul float %t.137, 1.500000e+00
  %t.139 = fmul float %t.138, 1.500000e+00
  %t.140 = fmul float %t.139, 1.500000e+00
  %t.141 = fmul float %t.140, 1.500000e+00
  %t.142 = fmul float %t.141, 1.500000e+00
  %t.143 = fmul float %t.142, 1.500000e+00
  %t.144 = fmul float %t.143, 1.500000e+00
  %t.145 = fmul float %t.144, 1.500000e+00
  %t.146 = fmul float %t.145, 1.500000e+00
  %t.147 = fmul float %t.146, 1.500000e+00
  %t.148 = fmul float %t.147, 1.500000e+00
  %t.149 = fmul float %t.148, 1.500000e+00
  %t.150 = fmul float %t.149, 1.500000e+00
  %t.151 = fmul float %t.150, 1.500000e+00
  %t.152 = fmul float %t.151, 1.500000e+00
  %t.153 = fmul float %t.152, 1.500000e+00
  %t.154 = fmul float %t.153, 1.500000e+00
  %t.155 = fmul float %t.154, 1.500000e+00
  %t.156 = fmul float %t.155, 1.500000e+00
  %t.157 = fmul float %t.156, 1.500000e+00
  %t.158 = fmul float %t.157, 1.500000e+00
  %t.159 = fmul float %t.158, 1.500000e+00
  %t.160 = fmul float %t.159, 1.500000e+00
  %t.161 = fmul float %t.160, 1.500000e+00
  %t.162 = fmul float %t.161, 1.500000e+00
  %t.163 = fmul float %t.162, 1.500000e+00
  %t.164 = fmul float %t.163, 1.500000e+00
  %t.165 = fmul float %t.164, 1.500000e+00
  %t.166 = fmul float %t.165, 1.500000e+00
  %t.167 = fmul float %t.166, 1.500000e+00
  %t.168 = fmul float %t.167, 1.500000e+00
  %t.169 = fmul float %t.168, 1.500000e+00
  %t.170 = fmul float %t.169, 1.500000e+00
  %t.171 = fmul float %t.170, 1.500000e+00
  %t.172 = fmul float %t.171, 1.500000e+00
  %t.173 = fmul float %t.172, 1.500000e+00
  %t.174 = fmul float %t.173, 1.500000e+00
  %t.175 = fmul float %t.174, 1.500000e+00
  %t.176 = fmul float %t.175, 1.500000e+00
  %t.177 = fmul float %t.176, 1.500000e+00
  %t.178 = fmul float %t.177, 1.500000e+00
  %t.179 = fmul float %t.178, 1.500000e+00
  %t.180 = fmul float %t.179, 1.500000e+00
  %t.181 = fmul float %t.180, 1.500000e+00
  %t.182 = fmul float %t.181, 1.500000e+00
  %t.183 = fmul float %t.182, 1.500000e+00
  %t.184 = fmul float %t.183, 1.500000e+00
  %t.185 = fmul float %t.184, 1.500000e+00
  %t.186 = fmul float %t.185, 1.500000e+00
  %t.187 = fmul float %t.186, 1.500000e+00
  %t.188 = fmul float %t.187, 1.500000e+00
  %t.189 = fmul float %t.188, 1.500000e+00
  %t.190 = fmul float %t.189, 1.500000e+00
  %t.191 = fmul float %t.190, 1.500000e+00
  %t.192 = fmul float %t.191, 1.500000e+00
  %t.193 = fmul float %t.192, 1.500000e+00
  %t.194 = fmul float %t.193, 1.500000e+00
  %t.195 = fmul float %t.194, 1.500000e+00
  %t.196 = fmul float %t.195, 1.500000e+00
  %t.197 = fmul float %t.196, 1.500000e+00
  %t.198 = fmul float %t.197, 1.500000e+00
  %t.199 = fmul float %t.198, 1.500000e+00
  %r.0 = load float, ptr %a.0, align 4
  %s.0 = fadd float %t.199, %r.0
  %r.1 = load float, ptr %a.1, align 4
  %s.1 = fadd float %s.0, %r.1
  %r.2 = load float, ptr %a.2, align 4
  %s.2 = fadd float %s.1, %r.2
  %r.3 = load float, ptr %a.3, align 4
  %s.3 = fadd float %s.2, %r.3
  %r.4 = load float, ptr %a.4, align 4
  %s.4 = fadd float %s.3, %r.4
  %r.5 = load float, ptr %a.5, align 4
  %s.5 = fadd float %s.4, %r.5
  %r.6 = load float, ptr %a.6, align 4
  %s.6 = fadd float %s.5, %r.6
  %r.7 = load float, ptr %a.7, align 4
  %s.7 = fadd float %s.6, %r.7
  %r.8 = load float, ptr %a.8, align 4
  %s.8 = fadd float %s.7, %r.8
  %r.9 = load float, ptr %a.9, align 4
  %s.9 = fadd float %s.8, %r.9
  %r.10 = load float, ptr %a.10, align 4
  %s.10 = fadd float %s.9, %r.10
  %r.11 = load float, ptr %a.11, align 4
  %s.11 = fadd float %s.10, %r.11
  %r.12 = load float, ptr %a.12, align 4
  %s.12 = fadd float %s.11, %r.12
  %r.13 = load float, ptr %a.13, align 4
  %s.13 = fadd float %s.12, %r.13
  %r.14 = load float, ptr %a.14, align 4
  %s.14 = fadd float %s.13, %r.14
  %r.15 = load float, ptr %a.15, align 4
  %s.15 = fadd float %s.14, %r.15
  %dyn = getelementptr inbounds [16 x float], ptr %a, i64 0, i32 %k
  %d = load float, ptr %dyn, align 4
  %sum = fadd float %s.15, %d
  store float %sum, ptr %out, align 4
  ret void
}

; A store at an offset that varies forgets everything; a local whose address
; goes to a call is left alone.
; CHECK-LABEL: define ptx_kernel void @forgets(
; CHECK:       %again = load float, ptr %a
; CHECK-LABEL: define ptx_kernel void @escapes(
; CHECK:       %again = load float, ptr %a
define ptx_kernel void @forgets(ptr %out, float %x, i32 %k) {
  %a = alloca [4 x float], align 4
  store float %x, ptr %a, align 4
  %p = getelementptr inbounds [4 x float], ptr %a, i64 0, i32 %k
  store float 0.000000e+00, ptr %p, align 4
  %again = load float, ptr %a, align 4
  store float %again, ptr %out, align 4
  ret void
}

define ptx_kernel void @escapes(ptr %out, float %x) {
  %a = alloca [4 x float], align 4
  store float %x, ptr %a, align 4
  call void @use(ptr %a)
  %again = load float, ptr %a, align 4
  store float %again, ptr %out, align 4
  ret void
}
