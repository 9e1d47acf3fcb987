/* Stand-in for csmith's custom_limits.h (csmith_minimal.h includes it):
   -ffreestanding nvptx64 has no libc headers. */
#define INT8_MIN (-128)
#define INT8_MAX 127
#define INT16_MIN (-32768)
#define INT16_MAX 32767
#define INT32_MIN (-2147483647-1)
#define INT32_MAX 2147483647
#define INT64_MIN (-9223372036854775807LL-1)
#define INT64_MAX 9223372036854775807LL
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX 18446744073709551615ULL
/* safe_math.h's float helpers need these too, and include nothing of their
   own; this is the one header every csmith program pulls in first. */
#define FLT_MAX __FLT_MAX__
#define DBL_MAX __DBL_MAX__
#define fabsf __builtin_fabsf
#define fabs __builtin_fabs
