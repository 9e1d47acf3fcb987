/* Stand-in for csmith's custom_stdint_x86.h (csmith_minimal.h includes it):
   -ffreestanding nvptx64 has no libc headers. LP64 widths as on x86-64. */
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
