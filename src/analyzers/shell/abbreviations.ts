// argparse's abbreviations: ArgumentParser takes a unique prefix of an option for the option (allow_abbrev, on by
// default, and so in HfArgumentParser), so `--per_device_train_batch 2` runs with per_device_train_batch_size 2
// (cpython Lib/argparse.py _parse_optional, _get_option_tuples: one option starting with the prefix is taken, several
// are an error). The options a Trainer script's parser has are its dataclasses' fields: the names below are
// TrainingArguments' of transformers 4.57.6 and 5.17.0 and the fields TRL 1.13's configs add to them (SFT, DPO, GRPO,
// KTO, RLOO, reward, ModelConfig, ScriptArguments), read with dataclasses.fields. A prefix of two or more of them
// names no option; the script's own dataclasses may add more options, which this list cannot see. Pure data.

/** Every option name (underscores) of the HF Trainer's and TRL's argument dataclasses, in both releases. */
const HF_ARGUMENT_NAMES: readonly string[] = `
accelerator_config activation_offloading adafactor adam_beta1 adam_beta2 adam_epsilon assistant_only_loss
attn_implementation auto_find_batch_size average_tokens_across_devices batch_eval_metrics beta bf16 bf16_full_eval
bnb_4bit_quant_storage bnb_4bit_quant_type cache_implementation cast_lm_head_to_fp32 center_rewards_coefficient
chat_template_kwargs chat_template_path completion_only_loss data_seed dataloader_drop_last dataloader_in_order
dataloader_multiprocessing_context dataloader_num_workers dataloader_persistent_workers dataloader_pin_memory
dataloader_prefetch_factor dataset_config dataset_kwargs dataset_name dataset_num_proc dataset_streaming
dataset_test_split dataset_text_field dataset_train_split ddp_backend ddp_broadcast_buffers ddp_bucket_cap_mb
ddp_find_unused_parameters ddp_static_graph ddp_timeout debug deepspeed delta desirable_weight disable_dropout
disable_tqdm discopop_tau do_eval do_predict do_train ds3_gather_for_generation dtype enable_jit_checkpoint
entropy_coef entropy_coef_delta entropy_coef_max entropy_coef_min entropy_target eos_token epsilon epsilon_high
eval_accumulation_steps eval_delay eval_do_concat_batches eval_on_start eval_packing eval_steps eval_strategy
eval_use_gather_object f_alpha_divergence_coef f_divergence_type fp16 fp16_backend fp16_full_eval fp16_opt_level
fsdp fsdp_config fsdp_min_num_params fsdp_transformer_layer_cls_to_wrap full_determinism generation_batch_size
generation_kwargs gradient_accumulation_steps gradient_checkpointing gradient_checkpointing_kwargs greater_is_better
group_by_length half_precision_backend hub_always_push hub_model_id hub_private_repo hub_revision hub_strategy
hub_token ignore_bias_buffers ignore_data_skip importance_sampling_level include_for_metrics
include_inputs_for_metrics include_num_input_tokens_seen include_tokens_per_second jit_mode_eval label_names
label_smoothing label_smoothing_factor ld_alpha learning_rate length_column_name liger_kernel_config
load_best_model_at_end load_in_4bit load_in_8bit local_rank log_completions log_completions_hub_repo log_level
log_level_replica log_multimodal log_on_each_node log_unique_prompts logging_dir logging_first_step
logging_nan_inf_filter logging_steps logging_strategy lora_alpha lora_dropout lora_modules_to_save lora_r
lora_target_modules lora_target_parameters lora_task_type loss_type loss_weights lr_scheduler_kwargs
lr_scheduler_type mask_truncated_completions max_completion_length max_grad_norm max_length max_steps
max_tool_calling_iterations metric_for_best_model min_p model_init_kwargs model_name_or_path model_revision
mp_parameters multi_objective_aggregation neftune_noise_alpha no_cuda normalize_advantages num_completions_to_print
num_generations num_generations_eval num_iterations num_train_epochs off_policy_mask_threshold optim optim_args
optim_target_modules output_dir overwrite_output_dir packing packing_strategy pad_to_multiple_of pad_token
padding_free parallelism_config past_index per_device_eval_batch_size per_device_train_batch_size
per_gpu_eval_batch_size per_gpu_train_batch_size precompute_ref_batch_size precompute_ref_log_probs
prediction_loss_only project push_to_hub push_to_hub_model_id push_to_hub_organization push_to_hub_token ray_scope
ref_model_mixup_alpha ref_model_sync_steps remove_unused_columns repetition_penalty report_to
restore_callback_states_from_checkpoint resume_from_checkpoint reward_clip_range reward_weights router_aux_loss_coef
run_name sapo_temperature_neg sapo_temperature_pos save_on_each_node save_only_model save_safetensors save_steps
save_strategy save_total_limit scale_rewards seed shuffle_dataset skip_memory_metrics steps_per_generation
sync_ref_model temperature tf32 top_entropy_quantile top_k top_p torch_compile torch_compile_backend
torch_compile_mode torch_empty_cache_steps torchdynamo tpu_metrics_debug tpu_num_cores trackio_bucket_id
trackio_space_id trackio_static_space_id train_sampling_strategy transformers_continuous_batching_config
truncation_mode trust_remote_code undesirable_weight use_adaptive_entropy use_bias_correction_kl
use_bnb_nested_quant use_cache use_cpu use_dora use_legacy_prediction_loop use_liger_kernel use_mps_device use_peft
use_rslora use_transformers_continuous_batching use_transformers_paged use_vllm use_weighting vespo_k_neg
vespo_k_pos vespo_lambda_neg vespo_lambda_pos vllm_enable_sleep_mode vllm_gpu_memory_utilization vllm_group_port
vllm_importance_sampling_cap vllm_importance_sampling_clip_max vllm_importance_sampling_clip_min
vllm_importance_sampling_correction vllm_importance_sampling_mode vllm_max_model_length vllm_mode vllm_model_impl
vllm_server_base_url vllm_server_host vllm_server_port vllm_server_timeout vllm_structured_outputs_regex
vllm_tensor_parallel_size warmup_ratio warmup_steps weight_decay
`
  .trim()
  .split(/\s+/);

/**
 * The option an abbreviated `--name` stands for: the one HF Trainer or TRL option it is a proper prefix of, where the
 * reader understands that option (`known`); undefined for a name that is an option itself, the prefix of none or of
 * several.
 */
export function abbreviatedOption(name: string, known: (option: string) => boolean): string | undefined {
  const option = prefixedOption(name, HF_ARGUMENT_NAMES);
  return option !== undefined && known(option) ? option : undefined;
}

/**
 * argparse's rule over a parser's options (`names`): the one option `name` is a proper prefix of; undefined for a name
 * that is an option itself, the prefix of none or of several (torchrun's `--nnode` is --nnodes too).
 */
export function prefixedOption(name: string, names: readonly string[]): string | undefined {
  if (name.length === 0 || names.includes(name)) return undefined;
  const starting = names.filter((n) => n.startsWith(name));
  return starting.length === 1 ? starting[0] : undefined;
}
