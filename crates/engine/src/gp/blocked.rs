//! Cache-blocked products and factorisations for the faithful DyHPO's n × n algebra (n up to
//! a few thousand): the Cholesky factor, L⁻¹, K⁻¹ = L⁻ᵀL⁻¹, the two n × n × d products of its
//! gradient, and its posterior's cross-distances and triangular solve for many queries.
//!
//! Why blocked: at n = 1,000 the factor alone is 8 MB, bigger than this machine's L2 cache, and
//! the dot-product loops of [`super::linalg`] stream it from L3 once per column — turning on
//! AVX-512 natively made them only 20 % faster, so the time was memory traffic, not arithmetic.
//! Here every product is computed in small tiles of C (4 × 4, or 4 × 8 and 4 × 16 with AVX2 and
//! AVX-512, see [`accumulate`]) over panels of k packed to fit L1/L2
//! (the classic GEMM layout), and the factorisations push their bulk into that product.
//! Every routine is generic over the element type ([`Real`]): f64, and f32 with tiles twice as
//! wide (docs/benchmarks.md, "Float32").
//!
//! The rule that makes this safe: **every element is the plain sequential sum over k, in
//! increasing k** — a tile starts from C's current value and keeps adding, panel after
//! panel. So the result does not depend on the block sizes or on the SIMD width: the page's
//! wasm and the native CLI give the same bits, and the tests compare each routine bit for bit
//! with a naive triple loop.
//!
//! Why by hand: the well-kept GEMM crates pick fused multiply-add kernels at run time
//! (matrixmultiply 0.3's dgemm uses `_mm512_fmadd_pd`/FMA when the CPU has them; gemm 0.19,
//! faer's, likewise), and wasm has no deterministic FMA. Their products would give the CLI
//! other bits than the page. No crate offers the sequential-sum guarantee this module needs.

use std::ops::Range;

mod affine;
mod real;
#[cfg(target_arch = "wasm32")]
mod wasm;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(crate) use affine::affine_rows;
use affine::{affine_element, tile_rows};
pub(crate) use real::Real;

/// Length of a packed panel of k (a 4 × 256 panel of A is 8 KiB, L1-resident).
const KC: usize = 256;
/// Columns of C per packed block of B (256 × 256 doubles = 512 KiB, L2-resident).
const NC: usize = 256;
/// Width of a column panel in the factorisations.
const NB: usize = 32;

/// Where element (i, k) of an operand lives: `Rows(data, ld)` at `data[i·ld + k]`,
/// `Cols(data, ld)` at `data[k·ld + i]`.
#[derive(Clone, Copy)]
pub(crate) enum Operand<'a, R = f64> {
    Rows(&'a [R], usize),
    Cols(&'a [R], usize),
}

/// What one step of a tile's sum adds: a·b, or (a − b)².
pub(crate) trait Term {
    /// (a − b)² rather than a·b (for the tiles written with vector intrinsics).
    const SQUARED_DIFFERENCE: bool;
    fn term<R: Real>(a: R, b: R) -> R;
}
/// a·b: a matrix product.
pub(crate) struct Product;
/// (a − b)²: squared Euclidean distances between rows.
pub(crate) struct SquaredDifference;
impl Term for Product {
    const SQUARED_DIFFERENCE: bool = false;
    #[inline(always)]
    fn term<R: Real>(a: R, b: R) -> R {
        a * b
    }
}
impl Term for SquaredDifference {
    const SQUARED_DIFFERENCE: bool = true;
    #[inline(always)]
    fn term<R: Real>(a: R, b: R) -> R {
        (a - b) * (a - b)
    }
}

/// Packs operand rows `first..first + W` (zeros past `end`) over `ks` as `[k][W]`, for the
/// tiles that cannot read the operand in place (see [`accumulate_tiled`]).
#[inline(always)]
fn pack<R: Real, const W: usize>(op: Operand<R>, first: usize, end: usize, ks: Range<usize>, out: &mut Vec<R>) {
    out.clear();
    out.resize(ks.len() * W, R::ZERO);
    let rows = first..(first + W).min(end);
    match op {
        Operand::Rows(data, ld) => {
            for (r, i) in rows.enumerate() {
                for (slot, &v) in out[r..].iter_mut().step_by(W).zip(&data[i * ld + ks.start..i * ld + ks.end]) {
                    *slot = v;
                }
            }
        }
        Operand::Cols(data, ld) => {
            let width = rows.len();
            for (chunk, k) in out.chunks_exact_mut(W).zip(ks) {
                chunk[..width].copy_from_slice(&data[k * ld + rows.start..k * ld + rows.end]);
            }
        }
    }
}

/// One step of a tile's sum: `sum + T(a, b)`, or `sum − a·b` when `SUB` (the naive loops'
/// `s -= a·b`; the same IEEE operation as adding (−a)·b).
#[inline(always)]
fn step<R: Real, T: Term, const SUB: bool>(sum: R, a: R, b: R) -> R {
    if SUB {
        sum - a * b
    } else {
        sum + T::term(a, b)
    }
}

/// acc[r][c] ±= T(a[k·sa + r], b[k·sb + c]) for k in 0..len, in order: each operand a packed
/// panel (stride MR or NR) or a column-major operand read in place (stride ld). Copied into a
/// local so the MR × NR sums stay in registers.
#[inline(always)]
fn tile<R: Real, T: Term, const SUB: bool, const MR: usize, const NR: usize>(
    (a, sa): (&[R], usize),
    (b, sb): (&[R], usize),
    len: usize,
    acc: &mut [[R; NR]; MR],
) {
    if R::vector_tile::<T, SUB, MR, NR>((a, sa), (b, sb), len, acc) {
        return;
    }
    let mut t = *acc;
    for k in 0..len {
        let (ak, bk) = (&a[k * sa..k * sa + MR], &b[k * sb..k * sb + NR]);
        for r in 0..MR {
            for c in 0..NR {
                t[r][c] = step::<R, T, SUB>(t[r][c], ak[r], bk[c]);
            }
        }
    }
    *acc = t;
}

/// What [`accumulate`] computes: C[i][j] ±= Σ_k T(A(i, k), B(j, k)) for i in `rows`, j in
/// `cols`, k in `span(tile rows, tile columns)` for each tile of C (a tile's whole range, so a
/// triangular operand's zeros may be included — adding an exact zero changes no sum), storing
/// only the elements `keep(i, j)` accepts. C is row-major with leading dimension `ldc`, its
/// row i at `(i − rows.start)·ldc`, column j at `j − cols.start`.
pub(crate) struct Accumulate<'a, R, S, K> {
    pub rows: Range<usize>,
    pub cols: Range<usize>,
    pub a: Operand<'a, R>,
    pub b: Operand<'a, R>,
    /// Subtract instead of add (only meaningful for [`Product`]).
    pub subtract: bool,
    /// The k range of the tile with these rows and columns.
    pub span: S,
    pub keep: K,
}

/// Runs an [`Accumulate`] into `c` (see there). Every element is a sequential sum in
/// increasing k from its starting value (see the module docs).
///
/// The tile is compute-bound (5.6·10⁹ multiply-adds per second with x86-64's baseline SSE2,
/// its peak without fused multiply-adds), so natively on x86-64 the same loops are compiled
/// again for AVX2 and AVX-512, with tiles as wide as their registers, and chosen at run time.
/// A wider tile only holds more elements of C side by side: no sum is reordered and Rust never
/// fuses a multiply and an add, so every path gives the same bits (the tests run whichever
/// this machine picks against the naive loops; wasm has simd128, two lanes, and 4 × 4 tiles).
///
/// Natively a large job is also split by rows of C across the rayon pool ([`accumulate_split`]):
/// each element is still one thread's sequential sum, so the bits do not depend on the number
/// of threads either. With a one-thread pool (`hpo job --threads 1`, what a sweep runs) a job
/// is not split at all: it runs on the thread that calls it, whereas `rayon::join` from outside
/// the pool would hand every large product to the pool's one thread and wait — in a protocol
/// job, hundreds of thousands of hand-overs, each two context switches and a move of the
/// operands to the other core's cache.
pub(crate) fn accumulate<R, T, S, K>(c: &mut [R], ldc: usize, job: Accumulate<R, S, K>)
where
    R: Real,
    T: Term,
    S: Fn(Range<usize>, Range<usize>) -> Range<usize> + Sync,
    K: Fn(usize, usize) -> bool + Sync,
{
    #[cfg(not(target_arch = "wasm32"))]
    if rayon::current_num_threads() > 1 {
        let Accumulate { rows, cols, a, b, subtract, span, keep } = job;
        return accumulate_split::<R, T, S, K>(c, ldc, Accumulate { rows, cols, a, b, subtract, span: &span, keep: &keep });
    }
    accumulate_serial::<R, T, S, K>(c, ldc, job)
}

/// Multiply-adds below which a job is not split further: about 60 µs of an AVX-512 tile's work,
/// so rayon's hand-over (about a microsecond) is noise, yet a 1,000 × 32 × 1,000 panel of the
/// Cholesky factor still splits into 32 pieces that two cores can balance.
#[cfg(not(target_arch = "wasm32"))]
const SPLIT_WORK: usize = 1 << 20;

/// Rows of C per piece are a multiple of this (every tile variant's MR divides it), so a piece
/// has the same tiles, hence the same per-tile k spans, as the whole job.
#[cfg(not(target_arch = "wasm32"))]
const SPLIT_ROWS: usize = 16;

/// [`accumulate`] natively: halves the rows of C (at a multiple of [`SPLIT_ROWS`] from
/// `rows.start`) while the job's work — rows × columns × the span of the whole block, an upper
/// bound — is at least twice [`SPLIT_WORK`], and runs the halves with `rayon::join`. The closures
/// are passed by reference so that the recursion keeps one type.
#[cfg(not(target_arch = "wasm32"))]
fn accumulate_split<R, T, S, K>(c: &mut [R], ldc: usize, job: Accumulate<R, &S, &K>)
where
    R: Real,
    T: Term,
    S: Fn(Range<usize>, Range<usize>) -> Range<usize> + Sync,
    K: Fn(usize, usize) -> bool + Sync,
{
    let Accumulate { rows, cols, a, b, subtract, span, keep } = job;
    let work = rows.len() * cols.len() * span(rows.clone(), cols.clone()).len();
    let half = rows.len() / 2 / SPLIT_ROWS * SPLIT_ROWS;
    if work < 2 * SPLIT_WORK || half == 0 {
        return accumulate_serial::<R, T, &S, &K>(c, ldc, Accumulate { rows, cols, a, b, subtract, span, keep });
    }
    let mid = rows.start + half;
    let (top, bottom) = c.split_at_mut(half * ldc);
    let (upper, lower) = (rows.start..mid, mid..rows.end);
    let cols_too = cols.clone();
    rayon::join(
        || accumulate_split::<R, T, S, K>(top, ldc, Accumulate { rows: upper, cols, a, b, subtract, span, keep }),
        || accumulate_split::<R, T, S, K>(bottom, ldc, Accumulate { rows: lower, cols: cols_too, a, b, subtract, span, keep }),
    );
}

/// The instruction sets [`accumulate`]'s tiles are compiled for; it runs on the widest the CPU
/// has. Every path gives the same bits (the tests force each one the CPU supports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Path {
    /// 4 × 4 tiles (4 × 8 in f32) in portable Rust (SSE2 natively, SIMD128 intrinsics in wasm).
    Portable,
    /// 4 × 8 tiles (4 × 16 in f32), AVX2 intrinsics.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// 4 × 16 tiles (4 × 32 in f32), AVX-512 intrinsics.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Path {
    /// Every path this CPU can run, narrowest first.
    #[cfg(test)]
    pub(crate) fn available() -> Vec<Path> {
        #[allow(unused_mut)]
        let mut paths = vec![Path::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                paths.push(Path::Avx2);
            }
            if std::is_x86_feature_detected!("avx512f") {
                paths.push(Path::Avx512);
            }
        }
        paths
    }

    /// The path [`accumulate`] takes: the widest, unless a test has forced another.
    fn chosen() -> Path {
        #[cfg(test)]
        if let Some(path) = *forced::PATH.lock().unwrap_or_else(|e| e.into_inner()) {
            return path;
        }
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") {
                return Path::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") {
                return Path::Avx2;
            }
        }
        Path::Portable
    }
}

/// A test's choice of [`Path`], process-wide so that the rayon threads running a split job see
/// it too. Forcing a path cannot change another test's results (every path gives the same
/// bits), only which tiles compute them.
#[cfg(test)]
pub(crate) mod forced {
    pub(crate) static PATH: std::sync::Mutex<Option<super::Path>> = std::sync::Mutex::new(None);
}

/// [`accumulate`] on the calling thread, with the tiles of [`Path::chosen`] (for f64: 4 × 16
/// with AVX-512, 4 × 8 with AVX2, 4 × 4 otherwise; twice as wide for f32, [`Real`]).
fn accumulate_serial<R, T, S, K>(c: &mut [R], ldc: usize, job: Accumulate<R, S, K>)
where
    R: Real,
    T: Term,
    S: Fn(Range<usize>, Range<usize>) -> Range<usize>,
    K: Fn(usize, usize) -> bool,
{
    R::accumulate_on::<T, S, K>(Path::chosen(), c, ldc, job)
}

/// [`accumulate`]'s loops with MR × NR tiles of C, inlined into each instruction-set variant.
#[inline(always)]
fn accumulate_tiled<R, T, S, K, const MR: usize, const NR: usize>(c: &mut [R], ldc: usize, job: Accumulate<R, S, K>)
where
    R: Real,
    T: Term,
    S: Fn(Range<usize>, Range<usize>) -> Range<usize>,
    K: Fn(usize, usize) -> bool,
{
    let Accumulate { rows, cols, a, b, subtract, span, keep } = job;
    let tile_rows = |i0: usize| i0..(i0 + MR).min(rows.end);
    let tile_cols = |j0: usize| j0..(j0 + NR).min(cols.end);
    // The k range any tile needs: the union (hull) of the non-empty tile spans.
    let spans = || {
        (rows.clone().step_by(MR))
            .flat_map(|i0| cols.clone().step_by(NR).map(move |j0| (i0, j0)))
            .map(|(i0, j0)| span(tile_rows(i0), tile_cols(j0)))
            .filter(|s| !s.is_empty())
    };
    let ks = spans().map(|s| s.start).min().unwrap_or(0)..spans().map(|s| s.end).max().unwrap_or(0);
    if ks.is_empty() {
        return;
    }
    // Full tiles read a column-major operand in place (it is already [k][tile], stride ld):
    // packing costs a pass over the operand, which the thin products of the factorisations
    // (32-wide blocks) amortise badly; in place, K⁻¹ = MᵀM and L⁻¹ took 36–38 ms instead of
    // 45–55 at n = 1,000. Row-major operands and edge tiles are packed (zeros past the edge):
    // read in place as MR row streams, a row-major A made the epoch 20–40 % slower.
    let (mut packed_a, mut packed_b) = (Vec::new(), Vec::new());
    let mut b_offsets = Vec::new();
    let mut panel = Vec::new();
    let at = |i: usize, j: usize| (i - rows.start) * ldc + (j - cols.start);
    for jc in cols.clone().step_by(NC) {
        let jc_end = (jc + NC).min(cols.end);
        for pc in ks.clone().step_by(KC) {
            let pk = pc..(pc + KC).min(ks.end);
            // Each tile's B as (data, offset of k = pk.start, stride).
            packed_b.clear();
            b_offsets.clear();
            for j0 in (jc..jc_end).step_by(NR) {
                match b {
                    Operand::Cols(_, ld) if j0 + NR <= cols.end => b_offsets.push((true, pk.start * ld + j0, ld)),
                    _ => {
                        pack::<R, NR>(b, j0, cols.end, pk.clone(), &mut panel);
                        b_offsets.push((false, packed_b.len(), NR));
                        packed_b.extend_from_slice(&panel);
                    }
                }
            }
            for i0 in rows.clone().step_by(MR) {
                let mut a_packed = false;
                for (t, j0) in (jc..jc_end).step_by(NR).enumerate() {
                    let s = span(tile_rows(i0), tile_cols(j0));
                    let (from, to) = (s.start.max(pk.start), s.end.min(pk.end));
                    if from >= to {
                        continue;
                    }
                    let full_rows = i0 + MR <= rows.end;
                    let (a_data, a_stride) = match a {
                        Operand::Cols(data, ld) if full_rows => (&data[from * ld + i0..], ld),
                        _ => {
                            if !a_packed {
                                pack::<R, MR>(a, i0, rows.end, pk.clone(), &mut packed_a);
                                a_packed = true;
                            }
                            (&packed_a[(from - pk.start) * MR..], MR)
                        }
                    };
                    let (in_place, offset, stride) = b_offsets[t];
                    let b_data = match (in_place, b) {
                        (true, Operand::Cols(data, _)) => &data[offset + (from - pk.start) * stride..],
                        _ => &packed_b[offset + (from - pk.start) * stride..],
                    };
                    let mut acc = [[R::ZERO; NR]; MR];
                    for i in tile_rows(i0) {
                        for j in tile_cols(j0) {
                            acc[i - i0][j - j0] = c[at(i, j)];
                        }
                    }
                    if subtract {
                        tile::<R, T, true, MR, NR>((a_data, a_stride), (b_data, stride), to - from, &mut acc);
                    } else {
                        tile::<R, T, false, MR, NR>((a_data, a_stride), (b_data, stride), to - from, &mut acc);
                    }
                    for i in tile_rows(i0) {
                        for j in tile_cols(j0) {
                            if keep(i, j) {
                                c[at(i, j)] = acc[i - i0][j - j0];
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Lower-triangular Cholesky factor of the row-major n × n `a` into `l` (upper triangle
/// zero), or `false` if `a` is not positive definite. Each element is the textbook sequential
/// L[i][j] = (A[i][j] − Σ_{k<j} L[i][k]·L[j][k]) / L[j][j] (a square root on the diagonal);
/// left-looking by panels of [`NB`] columns, the sums over earlier panels in [`accumulate`].
pub(crate) fn cholesky<R: Real>(a: &[R], n: usize, l: &mut Vec<R>) -> bool {
    l.clear();
    l.resize(n * n, R::ZERO);
    for i in 0..n {
        l[i * n..i * n + i + 1].copy_from_slice(&a[i * n..i * n + i + 1]);
    }
    cholesky_in_place(l, n)
}

/// [`cholesky`] on the row-major n × n `l` holding A's lower triangle (and zeros above it,
/// which it keeps): for a caller that builds A's lower triangle in place, saving a copy of an
/// n × n matrix.
pub(crate) fn cholesky_in_place<R: Real>(l: &mut [R], n: usize) -> bool {
    let mut panel = Vec::new();
    let mut pivot_column = Vec::new();
    for j0 in (0..n).step_by(NB) {
        let j1 = (j0 + NB).min(n);
        let width = j1 - j0;
        // The panel's rows, copied out contiguous (rows of `width`): both its sums over earlier
        // panels and its own factorisation run there. In place in `l` the factorisation walked
        // n rows with a stride of n per pivot column (at n = 1,000 an 8 KiB stride over 8 MB);
        // this function's own time was 7 % of a faithful run's profile.
        panel.clear();
        for i in j0..n {
            panel.extend_from_slice(&l[i * n + j0..i * n + j1]);
        }
        if j0 > 0 {
            let job = Accumulate {
                rows: j0..n,
                cols: j0..j1,
                a: Operand::Rows(l, n),
                b: Operand::Rows(l, n),
                subtract: true,
                span: |_: Range<usize>, _: Range<usize>| 0..j0,
                keep: |i: usize, j: usize| j <= i,
            };
            accumulate::<_, Product, _, _>(&mut panel, width, job);
        }
        // Inside the panel, right-looking: column j is finished, then its terms are
        // subtracted from the panel's later columns (k = j, in increasing order). Panel row
        // p is row j0 + p of `l`, panel column q its column j0 + q.
        for q in 0..width {
            let d = panel[q * width + q];
            if d <= R::ZERO || !d.is_finite() {
                return false;
            }
            let ljj = d.sqrt();
            panel[q * width + q] = ljj;
            for row in panel[(q + 1) * width..].chunks_exact_mut(width) {
                row[q] /= ljj;
            }
            pivot_column.clear();
            pivot_column.extend((q + 1..width).map(|r| panel[r * width + q]));
            for (p, row) in panel.chunks_exact_mut(width).enumerate().skip(q + 1) {
                let x = row[q];
                let end = (p + 1).min(width);
                for (v, &pivot) in row[q + 1..end].iter_mut().zip(&pivot_column) {
                    *v -= x * pivot;
                }
            }
        }
        for (i, row) in (j0..n).zip(panel.chunks_exact(width)) {
            let end = (i + 1).min(j1);
            l[i * n + j0..i * n + end].copy_from_slice(&row[..end - j0]);
        }
    }
    true
}

/// M = L⁻¹ (row-major, lower triangular) from the Cholesky factor: M[i][i] = 1/L[i][i] and
/// M[i][j] = −(Σ_{k=j}^{i−1} L[i][k]·M[k][j]) / L[i][i], the sum sequential in k — the forward
/// substitution of [`solve_lower_many`] with B = I, skipping the zeros above M's diagonal
/// (half the work).
pub(crate) fn inverse_lower<R: Real>(l: &[R], n: usize, m: &mut Vec<R>) {
    m.clear();
    m.resize(n * n, R::ZERO);
    forward_substitution::<R, true>(l, n, m, n, 0..n);
}

/// Solves L·X = B in place for the row-major n × q `x` (holding B): X[i][c] = (B[i][c] −
/// Σ_{k<i} L[i][k]·X[k][c]) / L[i][i], the sum sequential in k — forward substitution for q
/// right-hand sides at once.
pub(crate) fn solve_lower_many<R: Real>(l: &[R], n: usize, x: &mut [R], q: usize) {
    solve_lower_rows(l, n, x, q, 0..n);
}

/// [`solve_lower_many`] for the rows in `rows` only, the rows before them already solved in
/// `x` (which holds at least `rows.end` rows): row i depends on rows k < i alone, so solving
/// a prefix, then the rest, gives the bits of one solve.
pub(crate) fn solve_lower_rows<R: Real>(l: &[R], n: usize, x: &mut [R], q: usize, rows: Range<usize>) {
    forward_substitution::<R, false>(l, n, x, q, rows);
}

/// The forward substitution of [`solve_lower_rows`] by blocks of [`NB`] rows: the terms with k
/// before the block in [`accumulate`], the rest row by row. With `IDENTITY`, B is the identity
/// (q = n, `x` zero): X = L⁻¹ is lower triangular, so only columns j ≤ k of row k are read
/// (the block's sums run from the tile's first column, [`inverse_lower`]) and the diagonal is
/// 1/L[i][i] — what the general path computes from 1 − 0, without the zero terms.
fn forward_substitution<R: Real, const IDENTITY: bool>(l: &[R], n: usize, x: &mut [R], q: usize, rows: Range<usize>) {
    for i0 in rows.clone().step_by(NB) {
        let i1 = (i0 + NB).min(rows.end);
        let (done, block) = x.split_at_mut(i0 * q);
        if i0 > 0 {
            let job = Accumulate {
                rows: i0..i1,
                cols: 0..if IDENTITY { i0 } else { q },
                a: Operand::Rows(l, n),
                b: Operand::Cols(done, q),
                subtract: true,
                span: |_: Range<usize>, js: Range<usize>| if IDENTITY { js.start..i0 } else { 0..i0 },
                keep: |_: usize, _: usize| true,
            };
            accumulate::<_, Product, _, _>(block, q, job);
        }
        for i in i0..i1 {
            let (before, row) = block.split_at_mut((i - i0) * q);
            let row = &mut row[..q];
            for k in i0..i {
                let lik = l[i * n + k];
                let width = if IDENTITY { k + 1 } else { q };
                let solved = &before[(k - i0) * q..(k - i0) * q + width];
                for (v, &p) in row[..width].iter_mut().zip(solved) {
                    *v -= lik * p;
                }
            }
            let d = l[i * n + i];
            if IDENTITY {
                for v in &mut row[..i] {
                    *v /= d;
                }
                row[i] = R::ONE / d;
            } else {
                for v in row.iter_mut() {
                    *v /= d;
                }
            }
        }
    }
}

/// Squared distances Σ_k (Y[c][k] − X[j][k])² from each row of the row-major q × d `y` to each
/// row of the n × d `x`, as a row-major q × n matrix, sequential in k.
pub(crate) fn cross_squared_distances<R: Real>(y: &[R], q: usize, x: &[R], n: usize, d: usize) -> Vec<R> {
    let mut out = vec![R::ZERO; q * n];
    let job = Accumulate {
        rows: 0..q,
        cols: 0..n,
        a: Operand::Rows(y, d),
        b: Operand::Rows(x, d),
        subtract: false,
        span: |_: Range<usize>, _: Range<usize>| 0..d,
        keep: |_: usize, _: usize| true,
    };
    accumulate::<_, SquaredDifference, _, _>(&mut out, n, job);
    out
}

/// K⁻¹ = MᵀM from M = L⁻¹ ([`inverse_lower`]), symmetric, into `inv`: element (i, j), j ≤ i,
/// is Σ_{k=i}^{n−1} M[k][i]·M[k][j], sequential in k.
pub(crate) fn inverse_from_lower_inverse<R: Real>(m: &[R], n: usize, inv: &mut Vec<R>) {
    inv.clear();
    inv.resize(n * n, R::ZERO);
    let job = Accumulate {
        rows: 0..n,
        cols: 0..n,
        a: Operand::Cols(m, n),
        b: Operand::Cols(m, n),
        subtract: false,
        span: |is: Range<usize>, js: Range<usize>| if js.start >= is.end { 0..0 } else { is.start..n },
        keep: |i: usize, j: usize| j <= i,
    };
    accumulate::<_, Product, _, _>(inv, n, job);
    mirror_lower(&mut inv[..], n);
}

/// Copies the strict lower triangle of the row-major n × n `m` onto its upper triangle, in
/// 32 × 32 blocks: column by column over a whole matrix, each write a new 8 KiB-strided row at
/// n = 1,000 (a TLB miss each); within a block the writes stay on 32 rows.
pub(crate) fn mirror_lower<R: Real>(m: &mut [R], n: usize) {
    const B: usize = 32;
    for i0 in (0..n).step_by(B) {
        for j0 in (0..=i0).step_by(B) {
            for i in i0..(i0 + B).min(n) {
                for j in j0..(j0 + B).min(i) {
                    m[j * n + i] = m[i * n + j];
                }
            }
        }
    }
}

/// Squared distances Σ_k (X[i][k] − X[j][k])² between the rows of the row-major n × d `x`,
/// symmetric n × n, sequential in k.
pub(crate) fn squared_distances<R: Real>(x: &[R], n: usize, d: usize) -> Vec<R> {
    let mut out = Vec::new();
    squared_distances_into(x, n, d, &mut out);
    out
}

/// [`squared_distances`] into a buffer (reused across a fit's epochs: a fresh n × n matrix
/// costs its pages' faults).
pub(crate) fn squared_distances_into<R: Real>(x: &[R], n: usize, d: usize, out: &mut Vec<R>) {
    out.clear();
    out.resize(n * n, R::ZERO);
    let job = Accumulate {
        rows: 0..n,
        cols: 0..n,
        a: Operand::Rows(x, d),
        b: Operand::Rows(x, d),
        subtract: false,
        span: |is: Range<usize>, js: Range<usize>| if js.start >= is.end { 0..0 } else { 0..d },
        keep: |i: usize, j: usize| j < i,
    };
    accumulate::<_, SquaredDifference, _, _>(out, n, job);
    mirror_lower(&mut out[..], n);
}

/// W·X for the row-major n × n `w` and n × d `x`: element (i, c) is Σ_j W[i][j]·X[j][c],
/// sequential in j.
pub(crate) fn product<R: Real>(w: &[R], x: &[R], n: usize, d: usize) -> Vec<R> {
    let mut out = Vec::new();
    product_into(w, x, n, d, &mut out);
    out
}

/// [`product`] into a buffer.
pub(crate) fn product_into<R: Real>(w: &[R], x: &[R], n: usize, d: usize, out: &mut Vec<R>) {
    out.clear();
    out.resize(n * d, R::ZERO);
    let job = Accumulate {
        rows: 0..n,
        cols: 0..d,
        a: Operand::Rows(w, n),
        b: Operand::Cols(x, d),
        subtract: false,
        span: |_: Range<usize>, _: Range<usize>| 0..n,
        keep: |_: usize, _: usize| true,
    };
    accumulate::<_, Product, _, _>(out, d, job);
}

/// C[i][j] += Σ_{k<depth} A(i, k)·B(j, k) for the `rows` × `cols` row-major C (leading
/// dimension `ldc`), each element a sequential sum in increasing k from its current value:
/// what adding one k's terms after another gives, as a network's backward pass adds one
/// point's gradient after another.
pub(crate) fn add_product<R: Real>(c: &mut [R], ldc: usize, (rows, cols): (usize, usize), a: Operand<R>, b: Operand<R>, depth: usize) {
    let job = Accumulate {
        rows: 0..rows,
        cols: 0..cols,
        a,
        b,
        subtract: false,
        span: |_: Range<usize>, _: Range<usize>| 0..depth,
        keep: |_: usize, _: usize| true,
    };
    accumulate::<_, Product, _, _>(c, ldc, job);
}

#[cfg(test)]
pub(crate) mod tests;
