// float_rows of the AVX2 and AVX-512 float dots (dot_avx2.cpp, dot_avx512.cpp), included
// by each inside its anonymous namespace after its float_tile and float_tile_tokens, with
// kTokenTile its token tile's width (the tile widths differ: 16 or 32 vector registers).
// Each (row, token) is one tile's sum whatever the loop order: the same bits.
#pragma once

template <TensorType kType>
void float_rows(const uint8_t* rows, uint64_t row_bytes, int64_t n_rows, const float* X,
                int64_t ldx, int64_t n_tokens, int64_t n, float* Y, int64_t ldy) {
  int64_t r = 0;
  // Decode: 8 rows at a time (8 streams and 8 sums in flight; a row's sum is the same
  // whatever the tile's height).
  if (n_tokens == 1) {
    for (; r + 8 <= n_rows; r += 8)
      float_tile<kType, 8, 1>(rows + r * row_bytes, row_bytes, X, ldx, n, Y + r, ldy);
  }
  // Prefill: rows in blocks of kRowBlock, each block's tiles over one token tile after
  // another, so that a token tile's activations are read from L1 by every row tile of the
  // block, and the block's weights (kRowBlock rows) stay in L2 across the token tiles.
  // Row tile by row tile over every token instead read all the activations (128 tokens x
  // 2048 values x 4 bytes: 1 MB, more than L2 for the wider rows) again for every 4 rows
  // (TinyLlama-shape F16 prefill, 2 threads, AMD EPYC AVX-512: 107 -> 118-137 tokens/s).
  // Each (row, token) is still one tile's sum: the same bits.
  constexpr int64_t kRowBlock = 16;  // 16, 32 and 64 measured alike (TinyLlama shape)
  for (int64_t rb = r; rb < n_rows; rb += kRowBlock) {
    const int64_t re = std::min(n_rows, rb + kRowBlock);
    for (int64_t t = 0; t < n_tokens; t += kTokenTile) {
      const int64_t nt = std::min<int64_t>(kTokenTile, n_tokens - t);
      const float* Xt = X + t * ldx;
      float* Yt = Y + t * ldy;
      int64_t q = rb;
      for (; q + 4 <= re; q += 4)
        float_tile_tokens<kType, 4>(rows + q * row_bytes, row_bytes, Xt, ldx, nt, n, Yt + q, ldy);
      for (; q < re; ++q)
        float_tile_tokens<kType, 1>(rows + q * row_bytes, row_bytes, Xt, ldx, nt, n, Yt + q, ldy);
    }
  }
}
