"""The math of the book, written once against an array namespace ``xp`` (see ``_ops``).

``API`` lists the functions every backend exposes, in the order of the book.
"""

from . import attention, attention_lse, blocks, experiment, gradcheck, layernorm, softmax

API = (
    softmax.softmax,
    softmax.entropy,
    softmax.softmax_jacobian,
    softmax.softmax_vjp,
    attention.scores,
    attention.attention,
    attention.attention_backward,
    attention.attention_backward_parts,
    attention_lse.attention_lse,
    attention_lse.attention_backward_lse,
    gradcheck.gradcheck,
    gradcheck.numerical_gradient,
    layernorm.layernorm,
    layernorm.layernorm_jacobian,
    layernorm.layernorm_backward,
    blocks.block_weights,
    blocks.self_attention,
    blocks.self_attention_backward,
    blocks.pre_ln_block,
    blocks.pre_ln_block_backward,
    blocks.post_ln_block,
    blocks.post_ln_block_backward,
    blocks.stack_grad_norms,
    experiment.dot_product_samples,
    experiment.multiplier_stats,
    experiment.multiplier_grad_norms,
    experiment.train_single_query,
)

TYPES = {
    "AttentionParts": attention.AttentionParts,
    "MultiplierStats": experiment.MultiplierStats,
    "GradNorms": experiment.GradNorms,
    "History": experiment.History,
}
