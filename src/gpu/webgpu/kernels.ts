/**
 * WGSL sources, one file per kernel (imported as text through Vite's ?raw). WGSL has no imports:
 * the kernels that apply an activation get activation.wgsl (act, its derivative and the ACT
 * override) prepended here, those that take a sigmoid sigmoid.wgsl, the two softmax kernels
 * softmax_row.wgsl (a row's max and sum of exponentials), the matmul kernels matmul_block.wgsl
 * (layouts, bindings, stores) and matmul_sum.wgsl (a 4x4 block's sum over k; also the sibling
 * products' kernel), the column sums col_block.wgsl and the
 * scatters scatter_chunk.wgsl (their loops): one copy of that code for all of them. A fused kernel
 * (plan-fuse.ts) and the kernels it fuses share their expressions the same way (binary_op,
 * bernoulli_log, reduce_row, reduce_grad_d, sum_grad_d, binary_grad_d, unary_grad_d;
 * bias_act_grad_io and binary_grad_pair_io hold the bindings and step of a kernel and its fused twin).
 * The kernels with trees across invocations get tree_levels.wgsl and tree.wgsl, and their subgroup
 * twins tree_levels.wgsl and tree_sg.wgsl.
 */
import activation from '../kernels/activation.wgsl?raw';
import adam from '../kernels/adam.wgsl?raw';
import attention from '../kernels/attention.wgsl?raw';
import attentionDscores from '../kernels/attention_dscores.wgsl?raw';
import attentionDscoresTiled from '../kernels/attention_dscores_tiled.wgsl?raw';
import attentionMix from '../kernels/attention_mix.wgsl?raw';
import attentionMixTiled from '../kernels/attention_mix_tiled.wgsl?raw';
import attentionPairs from '../kernels/attention_pairs.wgsl?raw';
import attentionRows from '../kernels/attention_rows.wgsl?raw';
import bernoulli from '../kernels/bernoulli.wgsl?raw';
import bernoulliChain from '../kernels/bernoulli_chain.wgsl?raw';
import bernoulliGrad from '../kernels/bernoulli_grad.wgsl?raw';
import bernoulliLog from '../kernels/bernoulli_log.wgsl?raw';
import biasAct from '../kernels/bias_act.wgsl?raw';
import biasActGrad from '../kernels/bias_act_grad.wgsl?raw';
import biasActGradIo from '../kernels/bias_act_grad_io.wgsl?raw';
import biasActGradPair from '../kernels/bias_act_grad_pair.wgsl?raw';
import binary from '../kernels/binary.wgsl?raw';
import binaryBiasAct from '../kernels/binary_bias_act.wgsl?raw';
import binaryGrad from '../kernels/binary_grad.wgsl?raw';
import binaryGradChain from '../kernels/binary_grad_chain.wgsl?raw';
import binaryGradD from '../kernels/binary_grad_d.wgsl?raw';
import binaryGradPair from '../kernels/binary_grad_pair.wgsl?raw';
import binaryGradPairIo from '../kernels/binary_grad_pair_io.wgsl?raw';
import binaryOp from '../kernels/binary_op.wgsl?raw';
import colBlock from '../kernels/col_block.wgsl?raw';
import colBlocks from '../kernels/col_blocks.wgsl?raw';
import colPartial from '../kernels/col_partial.wgsl?raw';
import colRows from '../kernels/col_rows.wgsl?raw';
import colSum from '../kernels/col_sum.wgsl?raw';
import crossEntropy from '../kernels/cross_entropy.wgsl?raw';
import crossEntropyGrad from '../kernels/cross_entropy_grad.wgsl?raw';
import gatherBinary from '../kernels/gather_binary.wgsl?raw';
import gatherBinaryBiasAct from '../kernels/gather_binary_bias_act.wgsl?raw';
import gatherGrad from '../kernels/gather_grad.wgsl?raw';
import gatherRows from '../kernels/gather_rows.wgsl?raw';
import gradNorm from '../kernels/grad_norm.wgsl?raw';
import gradNormPartial from '../kernels/grad_norm_partial.wgsl?raw';
import gradPairThen from '../kernels/grad_pair_then.wgsl?raw';
import layerNorm from '../kernels/layer_norm.wgsl?raw';
import layerNormGrad from '../kernels/layer_norm_grad.wgsl?raw';
import layerNormGradIo from '../kernels/layer_norm_grad_io.wgsl?raw';
import layerNormGradWide from '../kernels/layer_norm_grad_wide.wgsl?raw';
import layerNormIo from '../kernels/layer_norm_io.wgsl?raw';
import layerNormWide from '../kernels/layer_norm_wide.wgsl?raw';
import matmul from '../kernels/matmul.wgsl?raw';
import matmulBlock from '../kernels/matmul_block.wgsl?raw';
import matmulMembers from '../kernels/matmul_members.wgsl?raw';
import matmulLanes from '../kernels/matmul_lanes.wgsl?raw';
import matmulSiblings from '../kernels/matmul_siblings.wgsl?raw';
import matmulSum from '../kernels/matmul_sum.wgsl?raw';
import matmulWgrads from '../kernels/matmul_wgrads.wgsl?raw';
import matmulXgrads from '../kernels/matmul_xgrads.wgsl?raw';
import matmulSplitkSum from '../kernels/matmul_splitk_sum.wgsl?raw';
import matmulTiled from '../kernels/matmul_tiled.wgsl?raw';
import matmulWide from '../kernels/matmul_wide.wgsl?raw';
import pick from '../kernels/pick.wgsl?raw';
import pickGrad from '../kernels/pick_grad.wgsl?raw';
import ppoClip from '../kernels/ppo_clip.wgsl?raw';
import ppoClipGrad from '../kernels/ppo_clip_grad.wgsl?raw';
import reduce from '../kernels/reduce.wgsl?raw';
import reduceBinary from '../kernels/reduce_binary.wgsl?raw';
import reduceGrad from '../kernels/reduce_grad.wgsl?raw';
import reduceGradBinary from '../kernels/reduce_grad_binary.wgsl?raw';
import reduceGradD from '../kernels/reduce_grad_d.wgsl?raw';
import reduceRow from '../kernels/reduce_row.wgsl?raw';
import reduceWide from '../kernels/reduce_wide.wgsl?raw';
import scatterAddRows from '../kernels/scatter_add_rows.wgsl?raw';
import scatterChunk from '../kernels/scatter_chunk.wgsl?raw';
import scatterPartial from '../kernels/scatter_partial.wgsl?raw';
import scatterRows from '../kernels/scatter_rows.wgsl?raw';
import sigmoid from '../kernels/sigmoid.wgsl?raw';
import softmax from '../kernels/softmax.wgsl?raw';
import softmaxGrad from '../kernels/softmax_grad.wgsl?raw';
import softmaxGradPair from '../kernels/softmax_grad_pair.wgsl?raw';
import softmaxPair from '../kernels/softmax_pair.wgsl?raw';
import softmaxRow from '../kernels/softmax_row.wgsl?raw';
import sumGradD from '../kernels/sum_grad_d.wgsl?raw';
import treeOnly from '../kernels/tree.wgsl?raw';
import treeLevels from '../kernels/tree_levels.wgsl?raw';
import treeSg from '../kernels/tree_sg.wgsl?raw';
import unary from '../kernels/unary.wgsl?raw';
import unaryGrad from '../kernels/unary_grad.wgsl?raw';
import unaryGradD from '../kernels/unary_grad_d.wgsl?raw';

/** The trees in workgroup memory, and their subgroup twins' (after the directive WGSL wants first). */
const tree = treeLevels + treeOnly;
const TREE_SG = `enable subgroups;\n${treeLevels}${treeSg}`;
/** The matmul kernels' layouts, bindings and stores, and a 4x4 block's sum over k. */
const MATMUL = matmulBlock + matmulSum;
/** A binary op's operand gradient (binary_grad_d.wgsl), which starts from a sum's (sum_grad_d.wgsl). */
const BINARY_GRAD_D = sumGradD + binaryGradD;

export const KERNELS = {
  adam: adam,
  attention: attention,
  attention_dscores: attentionDscores,
  attention_dscores_tiled: attentionDscoresTiled,
  attention_mix: attentionMix,
  attention_mix_tiled: attentionMixTiled,
  attention_pairs: attentionPairs,
  attention_rows: attentionRows,
  bernoulli: bernoulliLog + bernoulli,
  bernoulli_chain: sigmoid + bernoulliLog + binaryOp + bernoulliChain,
  bernoulli_grad: sigmoid + bernoulliGrad,
  bias_act: sigmoid + activation + biasAct,
  bias_act_grad: sigmoid + activation + biasActGradIo + biasActGrad,
  bias_act_grad_pair: sigmoid + activation + biasActGradIo + sumGradD + biasActGradPair,
  binary: binaryOp + binary,
  // Fused chains of the kernels above (plan-fuse.ts).
  binary_bias_act: sigmoid + activation + binaryBiasAct,
  binary_grad: BINARY_GRAD_D + binaryGrad,
  binary_grad_chain: binaryGradChain,
  binary_grad_pair: BINARY_GRAD_D + binaryGradPairIo + binaryGradPair,
  col_blocks: colBlock + colBlocks,
  col_partial: colBlock + colPartial,
  col_rows: colBlock + colRows,
  col_sum: colSum,
  cross_entropy: crossEntropy,
  cross_entropy_grad: crossEntropyGrad,
  gather_binary: gatherBinary,
  gather_binary_bias_act: sigmoid + activation + gatherBinaryBiasAct,
  gather_grad: gatherGrad,
  gather_rows: gatherRows,
  grad_norm: tree + gradNorm,
  grad_pair_then: BINARY_GRAD_D + binaryGradPairIo + unaryGradD + reduceGradD + gradPairThen,
  grad_norm_partial: tree + gradNormPartial,
  // The kernels with trees across invocations again, on tree_sg.wgsl (SUBGROUP_TWINS).
  grad_norm_sg: TREE_SG + gradNorm,
  grad_norm_partial_sg: TREE_SG + gradNormPartial,
  layer_norm: layerNormIo + layerNorm,
  layer_norm_grad: layerNormGradIo + layerNormGrad,
  // A workgroup per row for long rows on a hardware adapter (GpuModelOptions.wideRows).
  layer_norm_wide: tree + layerNormIo + layerNormWide,
  layer_norm_grad_wide: tree + layerNormGradIo + layerNormGradWide,
  matmul: MATMUL + matmul,
  // The first passes of split-K products: the same kernels with SPLIT_K = 1 (plan-calls.ts).
  matmul_splitk: MATMUL + matmul,
  matmul_splitk_sum: matmulSplitkSum,
  // Small outputs with K split over lanes (plan-calls.ts lanesCall).
  matmul_lanes: tree + MATMUL + matmulLanes,
  matmul_lanes_sg: TREE_SG + MATMUL + matmulLanes,
  // Two or three lanes products with one left operand in one dispatch (plan-siblings.ts).
  matmul_siblings: tree + matmulSum + matmulMembers + matmulSiblings,
  matmul_siblings_sg: TREE_SG + matmulSum + matmulMembers + matmulSiblings,
  // A backward pass's lanes products grouped by operand: weight gradients of one input, input
  // gradients into one tensor's gradient (plan-grads.ts).
  matmul_wgrads: tree + matmulSum + matmulMembers + matmulWgrads,
  matmul_wgrads_sg: TREE_SG + matmulSum + matmulMembers + matmulWgrads,
  matmul_xgrads: tree + matmulSum + matmulXgrads,
  matmul_xgrads_sg: TREE_SG + matmulSum + matmulXgrads,
  matmul_tiled: MATMUL + matmulTiled,
  matmul_wide: MATMUL + matmulWide,
  matmul_splitk_tiled: MATMUL + matmulTiled,
  pick: pick,
  pick_grad: pickGrad,
  ppo_clip: ppoClip,
  ppo_clip_grad: ppoClipGrad,
  reduce: reduceRow + reduce,
  reduce_binary: reduceRow + binaryOp + reduceBinary,
  reduce_grad: reduceGradD + reduceGrad,
  reduce_grad_binary: reduceGradD + BINARY_GRAD_D + reduceGradBinary,
  reduce_wide: tree + reduceWide,
  reduce_wide_sg: TREE_SG + reduceWide,
  scatter_add_rows: scatterAddRows,
  scatter_partial: scatterChunk + scatterPartial,
  scatter_rows: scatterChunk + scatterRows,
  softmax: softmaxRow + softmax,
  softmax_grad: softmaxGrad,
  softmax_grad_pair: softmaxGradPair,
  softmax_pair: softmaxRow + softmaxPair,
  unary: sigmoid + unary,
  unary_grad: unaryGradD + unaryGrad,
} as const;

export type KernelName = keyof typeof KERNELS;

/**
 * The kernels that add across a workgroup's invocations in tree.wgsl's trees, and their twins on
 * tree_sg.wgsl: the same trees with subgroup shuffles for the levels within a subgroup, the same
 * bits, for devices with the `subgroups` feature (plan.ts buildPlan, GpuModelOptions.subgroups).
 */
export const SUBGROUP_TWINS = {
  grad_norm: 'grad_norm_sg',
  grad_norm_partial: 'grad_norm_partial_sg',
  matmul_lanes: 'matmul_lanes_sg',
  matmul_siblings: 'matmul_siblings_sg',
  matmul_wgrads: 'matmul_wgrads_sg',
  matmul_xgrads: 'matmul_xgrads_sg',
  reduce_wide: 'reduce_wide_sg',
} as const satisfies Partial<Record<KernelName, KernelName>>;
