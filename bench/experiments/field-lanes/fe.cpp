// A measurement, not part of the product (bench/experiments/field-lanes.mjs builds and runs it): the
// multiplication mod 2^255 - 19 in radix 2^25.5 (ten signed limbs, products of 64 bits), once as
// scalar code the way ref10 writes it, once as two independent multiplications in the two i64x2
// lanes of wasm SIMD (the Montgomery ladder's pairs of field operations would map onto them),
// products with i64x2.extmul_low_i32x4_s. The carries are the same in both.
#include <wasm_simd128.h>
#include <cstdint>
// The carry chain all three scalar forms share (ref10's order), on int64 locals h0..h9.
#define CARRY_CHAIN() do { \
  int64_t c; \
  c=(h0+(1<<25))>>26; h1+=c; h0-=c*(1LL<<26); \
  c=(h4+(1<<25))>>26; h5+=c; h4-=c*(1LL<<26); \
  c=(h1+(1<<24))>>25; h2+=c; h1-=c*(1LL<<25); \
  c=(h5+(1<<24))>>25; h6+=c; h5-=c*(1LL<<25); \
  c=(h2+(1<<25))>>26; h3+=c; h2-=c*(1LL<<26); \
  c=(h6+(1<<25))>>26; h7+=c; h6-=c*(1LL<<26); \
  c=(h3+(1<<24))>>25; h4+=c; h3-=c*(1LL<<25); \
  c=(h7+(1<<24))>>25; h8+=c; h7-=c*(1LL<<25); \
  c=(h4+(1<<25))>>26; h5+=c; h4-=c*(1LL<<26); \
  c=(h8+(1<<25))>>26; h9+=c; h8-=c*(1LL<<26); \
  c=(h9+(1<<24))>>25; h0+=c*19; h9-=c*(1LL<<25); \
  c=(h0+(1<<25))>>26; h1+=c; h0-=c*(1LL<<26); \
} while (0)
typedef int32_t fe[10];
__attribute__((always_inline)) static inline void fe_mul_scalar(fe h, const fe f, const fe g) {
  int32_t f0=f[0],f1=f[1],f2=f[2],f3=f[3],f4=f[4],f5=f[5],f6=f[6],f7=f[7],f8=f[8],f9=f[9];
  int32_t g0=g[0],g1=g[1],g2=g[2],g3=g[3],g4=g[4],g5=g[5],g6=g[6],g7=g[7],g8=g[8],g9=g[9];
  int32_t g1_19=19*g1,g2_19=19*g2,g3_19=19*g3,g4_19=19*g4,g5_19=19*g5,g6_19=19*g6,g7_19=19*g7,g8_19=19*g8,g9_19=19*g9;
  int32_t f1_2=2*f1,f3_2=2*f3,f5_2=2*f5,f7_2=2*f7,f9_2=2*f9;
  int64_t h0=(int64_t)f0*g0+(int64_t)f1_2*g9_19+(int64_t)f2*g8_19+(int64_t)f3_2*g7_19+(int64_t)f4*g6_19+(int64_t)f5_2*g5_19+(int64_t)f6*g4_19+(int64_t)f7_2*g3_19+(int64_t)f8*g2_19+(int64_t)f9_2*g1_19;
  int64_t h1=(int64_t)f0*g1+(int64_t)f1*g0+(int64_t)f2*g9_19+(int64_t)f3*g8_19+(int64_t)f4*g7_19+(int64_t)f5*g6_19+(int64_t)f6*g5_19+(int64_t)f7*g4_19+(int64_t)f8*g3_19+(int64_t)f9*g2_19;
  int64_t h2=(int64_t)f0*g2+(int64_t)f1_2*g1+(int64_t)f2*g0+(int64_t)f3_2*g9_19+(int64_t)f4*g8_19+(int64_t)f5_2*g7_19+(int64_t)f6*g6_19+(int64_t)f7_2*g5_19+(int64_t)f8*g4_19+(int64_t)f9_2*g3_19;
  int64_t h3=(int64_t)f0*g3+(int64_t)f1*g2+(int64_t)f2*g1+(int64_t)f3*g0+(int64_t)f4*g9_19+(int64_t)f5*g8_19+(int64_t)f6*g7_19+(int64_t)f7*g6_19+(int64_t)f8*g5_19+(int64_t)f9*g4_19;
  int64_t h4=(int64_t)f0*g4+(int64_t)f1_2*g3+(int64_t)f2*g2+(int64_t)f3_2*g1+(int64_t)f4*g0+(int64_t)f5_2*g9_19+(int64_t)f6*g8_19+(int64_t)f7_2*g7_19+(int64_t)f8*g6_19+(int64_t)f9_2*g5_19;
  int64_t h5=(int64_t)f0*g5+(int64_t)f1*g4+(int64_t)f2*g3+(int64_t)f3*g2+(int64_t)f4*g1+(int64_t)f5*g0+(int64_t)f6*g9_19+(int64_t)f7*g8_19+(int64_t)f8*g7_19+(int64_t)f9*g6_19;
  int64_t h6=(int64_t)f0*g6+(int64_t)f1_2*g5+(int64_t)f2*g4+(int64_t)f3_2*g3+(int64_t)f4*g2+(int64_t)f5_2*g1+(int64_t)f6*g0+(int64_t)f7_2*g9_19+(int64_t)f8*g8_19+(int64_t)f9_2*g7_19;
  int64_t h7=(int64_t)f0*g7+(int64_t)f1*g6+(int64_t)f2*g5+(int64_t)f3*g4+(int64_t)f4*g3+(int64_t)f5*g2+(int64_t)f6*g1+(int64_t)f7*g0+(int64_t)f8*g9_19+(int64_t)f9*g8_19;
  int64_t h8=(int64_t)f0*g8+(int64_t)f1_2*g7+(int64_t)f2*g6+(int64_t)f3_2*g5+(int64_t)f4*g4+(int64_t)f5_2*g3+(int64_t)f6*g2+(int64_t)f7_2*g1+(int64_t)f8*g0+(int64_t)f9_2*g9_19;
  int64_t h9=(int64_t)f0*g9+(int64_t)f1*g8+(int64_t)f2*g7+(int64_t)f3*g6+(int64_t)f4*g5+(int64_t)f5*g4+(int64_t)f6*g3+(int64_t)f7*g2+(int64_t)f8*g1+(int64_t)f9*g0;
  CARRY_CHAIN();
  h[0]=(int32_t)h0;h[1]=(int32_t)h1;h[2]=(int32_t)h2;h[3]=(int32_t)h3;h[4]=(int32_t)h4;h[5]=(int32_t)h5;h[6]=(int32_t)h6;h[7]=(int32_t)h7;h[8]=(int32_t)h8;h[9]=(int32_t)h9;
}
// Candidate for the scalar build: the same products and carries with the limbs held as int64 in
// memory, so that no product needs its operands sign-extended first.
typedef int64_t fe64[10];
__attribute__((always_inline)) static inline void fe_mul_wide(fe64 h, const fe64 f, const fe64 g) {
  int64_t f0=f[0],f1=f[1],f2=f[2],f3=f[3],f4=f[4],f5=f[5],f6=f[6],f7=f[7],f8=f[8],f9=f[9];
  int64_t g0=g[0],g1=g[1],g2=g[2],g3=g[3],g4=g[4],g5=g[5],g6=g[6],g7=g[7],g8=g[8],g9=g[9];
  int64_t g1_19=19*g1,g2_19=19*g2,g3_19=19*g3,g4_19=19*g4,g5_19=19*g5,g6_19=19*g6,g7_19=19*g7,g8_19=19*g8,g9_19=19*g9;
  int64_t f1_2=2*f1,f3_2=2*f3,f5_2=2*f5,f7_2=2*f7,f9_2=2*f9;
  int64_t h0=f0*g0+f1_2*g9_19+f2*g8_19+f3_2*g7_19+f4*g6_19+f5_2*g5_19+f6*g4_19+f7_2*g3_19+f8*g2_19+f9_2*g1_19;
  int64_t h1=f0*g1+f1*g0+f2*g9_19+f3*g8_19+f4*g7_19+f5*g6_19+f6*g5_19+f7*g4_19+f8*g3_19+f9*g2_19;
  int64_t h2=f0*g2+f1_2*g1+f2*g0+f3_2*g9_19+f4*g8_19+f5_2*g7_19+f6*g6_19+f7_2*g5_19+f8*g4_19+f9_2*g3_19;
  int64_t h3=f0*g3+f1*g2+f2*g1+f3*g0+f4*g9_19+f5*g8_19+f6*g7_19+f7*g6_19+f8*g5_19+f9*g4_19;
  int64_t h4=f0*g4+f1_2*g3+f2*g2+f3_2*g1+f4*g0+f5_2*g9_19+f6*g8_19+f7_2*g7_19+f8*g6_19+f9_2*g5_19;
  int64_t h5=f0*g5+f1*g4+f2*g3+f3*g2+f4*g1+f5*g0+f6*g9_19+f7*g8_19+f8*g7_19+f9*g6_19;
  int64_t h6=f0*g6+f1_2*g5+f2*g4+f3_2*g3+f4*g2+f5_2*g1+f6*g0+f7_2*g9_19+f8*g8_19+f9_2*g7_19;
  int64_t h7=f0*g7+f1*g6+f2*g5+f3*g4+f4*g3+f5*g2+f6*g1+f7*g0+f8*g9_19+f9*g8_19;
  int64_t h8=f0*g8+f1_2*g7+f2*g6+f3_2*g5+f4*g4+f5_2*g3+f6*g2+f7_2*g1+f8*g0+f9_2*g9_19;
  int64_t h9=f0*g9+f1*g8+f2*g7+f3*g6+f4*g5+f5*g4+f6*g3+f7*g2+f8*g1+f9*g0;
  CARRY_CHAIN();
  h[0]=h0;h[1]=h1;h[2]=h2;h[3]=h3;h[4]=h4;h[5]=h5;h[6]=h6;h[7]=h7;h[8]=h8;h[9]=h9;
}
// Candidate: int64 limbs, and every product reads its two operands from memory (volatile, so that
// clang keeps them as loads instead of holding all 34 of them in wasm locals, which V8 spills):
// 2f and 19g are made first, into memory.
__attribute__((always_inline)) static inline void fe_mul_reload(fe64 h, const fe64 f, const fe64 g) {
  int64_t t[40];  // f, 2f (odd limbs doubled), g, 19g
  for (int i=0;i<10;i++){t[i]=f[i];t[10+i]=(i&1)?2*f[i]:f[i];t[20+i]=g[i];t[30+i]=19*g[i];}
  const volatile int64_t* v=t;
  int64_t r[10];
#pragma clang loop unroll(full)
  for (int k=0;k<10;k++){
    int64_t acc=0;
#pragma clang loop unroll(full)
    for (int i=0;i<10;i++){
      const int j=k-i;
      // odd i with odd j (or wrapped, with i odd and j odd) takes 2f: the radix's 2^0.5 steps
      const bool twice=(i&1)&&((j<0?j+10:j)&1);
      const int64_t fi=twice?v[10+i]:v[i];
      const int64_t gj=j>=0?v[20+j]:v[30+j+10];
      acc+=fi*gj;
    }
    r[k]=acc;
  }
  int64_t h0=r[0],h1=r[1],h2=r[2],h3=r[3],h4=r[4],h5=r[5],h6=r[6],h7=r[7],h8=r[8],h9=r[9];
  CARRY_CHAIN();
  h[0]=h0;h[1]=h1;h[2]=h2;h[3]=h3;h[4]=h4;h[5]=h5;h[6]=h6;h[7]=h7;h[8]=h8;h[9]=h9;
}
// Two multiplications at once: lane 0 and lane 1 of each v128 hold limb i of the two operands as
// i32 in lanes 0,1 (lanes 2,3 unused); products with i64x2.extmul_low_i32x4_s.
typedef v128_t fe2[10];
// Signed products and arithmetic shifts (ref10's signed limbs), or unsigned products and logical
// shifts (limbs kept non-negative, as a real unsigned form would): the cost is what is measured.
template <bool Signed>
static inline v128_t mul_lo(v128_t a, v128_t b) {
  return Signed ? wasm_i64x2_extmul_low_i32x4(a, b) : wasm_u64x2_extmul_low_u32x4(a, b);
}
template <bool Signed>
static inline v128_t shr(v128_t x, int n) {
  return Signed ? wasm_i64x2_shr(x, n) : wasm_u64x2_shr(x, n);
}
#define M(a,b) mul_lo<Signed>(a,b)
#define A(a,b) wasm_i64x2_add(a,b)
#define sra(x,n) shr<Signed>(x,n)
template <bool Signed>
static inline void fe_mul2(fe2 h, const fe2 f, const fe2 g) {
  v128_t f0=f[0],f1=f[1],f2=f[2],f3=f[3],f4=f[4],f5=f[5],f6=f[6],f7=f[7],f8=f[8],f9=f[9];
  v128_t g0=g[0],g1=g[1],g2=g[2],g3=g[3],g4=g[4],g5=g[5],g6=g[6],g7=g[7],g8=g[8],g9=g[9];
  const v128_t k19=wasm_i32x4_splat(19);
  v128_t g1_19=wasm_i32x4_mul(g1,k19),g2_19=wasm_i32x4_mul(g2,k19),g3_19=wasm_i32x4_mul(g3,k19),g4_19=wasm_i32x4_mul(g4,k19),g5_19=wasm_i32x4_mul(g5,k19),g6_19=wasm_i32x4_mul(g6,k19),g7_19=wasm_i32x4_mul(g7,k19),g8_19=wasm_i32x4_mul(g8,k19),g9_19=wasm_i32x4_mul(g9,k19);
  v128_t f1_2=wasm_i32x4_add(f1,f1),f3_2=wasm_i32x4_add(f3,f3),f5_2=wasm_i32x4_add(f5,f5),f7_2=wasm_i32x4_add(f7,f7),f9_2=wasm_i32x4_add(f9,f9);
  v128_t h0=A(A(A(A(A(M(f0,g0),M(f1_2,g9_19)),A(M(f2,g8_19),M(f3_2,g7_19))),A(M(f4,g6_19),M(f5_2,g5_19))),A(M(f6,g4_19),M(f7_2,g3_19))),A(M(f8,g2_19),M(f9_2,g1_19)));
  v128_t h1=A(A(A(A(A(M(f0,g1),M(f1,g0)),A(M(f2,g9_19),M(f3,g8_19))),A(M(f4,g7_19),M(f5,g6_19))),A(M(f6,g5_19),M(f7,g4_19))),A(M(f8,g3_19),M(f9,g2_19)));
  v128_t h2=A(A(A(A(A(M(f0,g2),M(f1_2,g1)),A(M(f2,g0),M(f3_2,g9_19))),A(M(f4,g8_19),M(f5_2,g7_19))),A(M(f6,g6_19),M(f7_2,g5_19))),A(M(f8,g4_19),M(f9_2,g3_19)));
  v128_t h3=A(A(A(A(A(M(f0,g3),M(f1,g2)),A(M(f2,g1),M(f3,g0))),A(M(f4,g9_19),M(f5,g8_19))),A(M(f6,g7_19),M(f7,g6_19))),A(M(f8,g5_19),M(f9,g4_19)));
  v128_t h4=A(A(A(A(A(M(f0,g4),M(f1_2,g3)),A(M(f2,g2),M(f3_2,g1))),A(M(f4,g0),M(f5_2,g9_19))),A(M(f6,g8_19),M(f7_2,g7_19))),A(M(f8,g6_19),M(f9_2,g5_19)));
  v128_t h5=A(A(A(A(A(M(f0,g5),M(f1,g4)),A(M(f2,g3),M(f3,g2))),A(M(f4,g1),M(f5,g0))),A(M(f6,g9_19),M(f7,g8_19))),A(M(f8,g7_19),M(f9,g6_19)));
  v128_t h6=A(A(A(A(A(M(f0,g6),M(f1_2,g5)),A(M(f2,g4),M(f3_2,g3))),A(M(f4,g2),M(f5_2,g1))),A(M(f6,g0),M(f7_2,g9_19))),A(M(f8,g8_19),M(f9_2,g7_19)));
  v128_t h7=A(A(A(A(A(M(f0,g7),M(f1,g6)),A(M(f2,g5),M(f3,g4))),A(M(f4,g3),M(f5,g2))),A(M(f6,g1),M(f7,g0))),A(M(f8,g9_19),M(f9,g8_19)));
  v128_t h8=A(A(A(A(A(M(f0,g8),M(f1_2,g7)),A(M(f2,g6),M(f3_2,g5))),A(M(f4,g4),M(f5_2,g3))),A(M(f6,g2),M(f7_2,g1))),A(M(f8,g0),M(f9_2,g9_19)));
  v128_t h9=A(A(A(A(A(M(f0,g9),M(f1,g8)),A(M(f2,g7),M(f3,g6))),A(M(f4,g5),M(f5,g4))),A(M(f6,g3),M(f7,g2))),A(M(f8,g1),M(f9,g0)));
  const v128_t r25=wasm_i64x2_splat(1<<25), r24=wasm_i64x2_splat(1<<24);
  v128_t c;
#define CARRY(a,b,r,s) c=sra(A(a,r),s); b=A(b,c); a=wasm_i64x2_sub(a,wasm_i64x2_shl(c,s));
  CARRY(h0,h1,r25,26) CARRY(h4,h5,r25,26) CARRY(h1,h2,r24,25) CARRY(h5,h6,r24,25) CARRY(h2,h3,r25,26)
  CARRY(h6,h7,r25,26) CARRY(h3,h4,r24,25) CARRY(h7,h8,r24,25) CARRY(h4,h5,r25,26) CARRY(h8,h9,r25,26)
  c=sra(A(h9,r24),25); h0=A(h0,wasm_i64x2_mul(c,wasm_i64x2_splat(19))); h9=wasm_i64x2_sub(h9,wasm_i64x2_shl(c,25));
  CARRY(h0,h1,r25,26)
  // back to the i32 lanes 0,1 layout
  v128_t hs[10]={h0,h1,h2,h3,h4,h5,h6,h7,h8,h9};
  for (int i=0;i<10;i++) h[i]=wasm_i32x4_shuffle(hs[i],hs[i],0,2,0,2);
}
extern "C" {
__attribute__((used)) int32_t run_scalar(int n, int32_t seed) {
  fe a, b; for (int i=0;i<10;i++){a[i]=seed+i*12345;b[i]=seed*3+i*777;}
  for (int k=0;k<n;k++){ fe_mul_scalar(a,a,b); fe_mul_scalar(b,b,a); }
  return a[0]^b[3];
}
__attribute__((used)) int32_t run_wide(int n, int32_t seed) {
  fe64 a, b; for (int i=0;i<10;i++){a[i]=seed+i*12345;b[i]=seed*3+i*777;}
  for (int k=0;k<n;k++){ fe_mul_wide(a,a,b); fe_mul_wide(b,b,a); }
  return (int32_t)(a[0]^b[3]);
}
__attribute__((used)) int32_t run_reload(int n, int32_t seed) {
  fe64 a, b; for (int i=0;i<10;i++){a[i]=seed+i*12345;b[i]=seed*3+i*777;}
  for (int k=0;k<n;k++){ fe_mul_reload(a,a,b); fe_mul_reload(b,b,a); }
  return (int32_t)(a[0]^b[3]);
}
__attribute__((used)) int32_t check_reload(int n, int32_t seed) {
  fe a, b; fe64 c, d; for (int i=0;i<10;i++){a[i]=c[i]=seed+i*12345;b[i]=d[i]=seed*3+i*777;}
  for (int k=0;k<n;k++){ fe_mul_scalar(a,a,b); fe_mul_scalar(b,b,a); fe_mul_reload(c,c,d); fe_mul_reload(d,d,c); }
  for (int i=0;i<10;i++) if (a[i]!=c[i]||b[i]!=d[i]) return 0;
  return 1;
}
// Both scalar forms agree (the same arithmetic): 1 when they do, after n rounds from the seed.
__attribute__((used)) int32_t check_wide(int n, int32_t seed) {
  fe a, b; fe64 c, d; for (int i=0;i<10;i++){a[i]=c[i]=seed+i*12345;b[i]=d[i]=seed*3+i*777;}
  for (int k=0;k<n;k++){ fe_mul_scalar(a,a,b); fe_mul_scalar(b,b,a); fe_mul_wide(c,c,d); fe_mul_wide(d,d,c); }
  for (int i=0;i<10;i++) if (a[i]!=c[i]||b[i]!=d[i]) return 0;
  return 1;
}
__attribute__((used)) int32_t run_simd(int n, int32_t seed) {
  fe2 a, b; for (int i=0;i<10;i++){a[i]=wasm_i32x4_make(seed+i*12345, seed+i*12345, 0, 0);b[i]=wasm_i32x4_make(seed*3+i*777, seed*3+i*777,0,0);}
  for (int k=0;k<n;k++){ fe_mul2<true>(a,a,b); }
  return wasm_i32x4_extract_lane(a[0],0);
}
__attribute__((used)) int32_t run_simd_unsigned(int n, int32_t seed) {
  fe2 a, b; for (int i=0;i<10;i++){a[i]=wasm_i32x4_make(seed+i*12345, seed+i*12345, 0, 0);b[i]=wasm_i32x4_make(seed*3+i*777, seed*3+i*777,0,0);}
  for (int k=0;k<n;k++){ fe_mul2<false>(a,a,b); }
  return wasm_i32x4_extract_lane(a[0],0);
}
}
