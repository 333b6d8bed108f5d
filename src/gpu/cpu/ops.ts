/**
 * Plain TypeScript kernels on Float32Array: the CPU backend and the reference every WGSL kernel is
 * tested against. Backward functions accumulate (g += ...) so that a tensor read by several ops sums
 * its gradient contributions; the caller zeroes gradients once per step.
 *
 * Kernels that run row by row or element by element take an optional count (rows, elements or
 * indices; default: all of them): the CPU backend passes the live rows of tensors whose inputs
 * end in padding rows (`Model.setInput`'s `rows`) and leaves the rest untouched.
 *
 * The kernels live in three files by family, each kernel beside its backward (as the .wgsl files
 * sit one per kernel): ops-matmul.ts (matrix products), ops-elementwise.ts (activations, softmax,
 * binary and unary ops, the Bernoulli log-probability) and ops-rows.ts (gather/scatter of rows,
 * layer norm, reductions, causal attention, cross-entropy). This file is their one import path.
 */
export * from './ops-matmul.ts';
export * from './ops-elementwise.ts';
export * from './ops-rows.ts';
