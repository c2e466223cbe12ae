// The catalog model a missing local folder's name, or an unknown Hub id, gives (src/core/model-from-path.ts): family
// and size both read from the last three parts, one catalog id, or nothing.
import * as assert from 'node:assert/strict';
import { modelFromHubName, modelFromPathName } from '../../src/core';

describe('modelFromPathName', () => {
  const cases: readonly (readonly [string, string | undefined])[] = [
    // allenai/open-instruct scripts/finetune_with_accelerate.sh and finetune_qlora_with_accelerate.sh
    ['../hf_llama2_models/7B', 'meta-llama/Llama-2-7b-hf'],
    ['../hf_llama2_models/70B', 'meta-llama/Llama-2-70b-hf'],
    // a size right after the family is not a version: llama-7b and llama-30b are LLaMA 1, gemma-2b is Gemma 1
    ['/data/llama-7b', 'huggyllama/llama-7b'],
    ['/data/llama-30b', 'huggyllama/llama-30b'],
    ['/x/gemma-2b', 'google/gemma-2b'],
    ['/x/gemma-2-9b', 'google/gemma-2-9b'],
    ['/x/y/llama3-8b-instruct', 'meta-llama/Meta-Llama-3-8B'],
    ['/x/Llama-3.1-70B', 'meta-llama/Llama-3.1-70B'],
    ['./ckpt/qwen2.5-0.5b', 'Qwen/Qwen2.5-0.5B'],
    ['/mnt/mixtral-8x7b', 'mistralai/Mixtral-8x7B-v0.1'],
    // a minor version written without its dot (lamm-mit/graph-preflexor-grpo src/run_grpo_graph.py's usage:
    // `--base_model_dir ./orpo_graph_llama32_3b`, the ORPO step's Llama-3.2-3B); llama-32b is no Llama 3.2
    ['./orpo_graph_llama32_3b', 'meta-llama/Llama-3.2-3B'],
    ['/ckpt/qwen25_7b_sft', 'Qwen/Qwen2.5-7B'],
    ['/ckpt/llama31-8b-instruct', 'meta-llama/Llama-3.1-8B'],
    ['/data/llama-32b', undefined],
    // ModelScope's download folders write a name's dots as `___` (taishan1994/Llama3.1-Finetuning's scripts)
    ['../model_hub/qwen/Qwen1___5-1___8B', 'Qwen/Qwen1.5-1.8B'],
    ['../model_hub/LLM-Research/Meta-Llama-3___1-8B-Instruct/', 'meta-llama/Llama-3.1-8B'],
    // an underscore before the size (LianjiaTech/BELLE train/scripts/run_sft.sh, Facico/Chinese-Vicuna finetune_4bit.sh)
    ['/path_to_llm/hf_llama_7b/', 'huggyllama/llama-7b'],
    ['/model/yahma_llama_7b', 'huggyllama/llama-7b'],
    // OpenBMB/MiniCPM finetune scripts' local folders; MiniCPM3 is another architecture (not in the catalog)
    ['/root/autodl-tmp/MiniCPM-2B-sft-bf16', 'openbmb/MiniCPM-2B-sft-bf16'],
    ['/root/autodl-tmp/MiniCPM3-4B', undefined],
    // a folder named after a catalog id under its organisation (QwenLM/Qwen's finetune_lora_single_gpu.ipynb downloads
    // with ModelScope's snapshot_download(cache_dir='.') and trains on "Qwen/Qwen-1_8B-Chat/")
    ['Qwen/Qwen-1_8B-Chat/', 'Qwen/Qwen-1_8B-Chat'],
    ['/data/hf/meta-llama/Llama-2-7b-hf', 'meta-llama/Llama-2-7b-hf'],
    ['/data/hf/someone/Llama-2-7b-hf-sft', 'meta-llama/Llama-2-7b-hf'],
    // a folder named as a catalog entry's repository, without the organisation (Illumination111/Full-FT-bash-of-
    // ktransformers-llamafactory Qwen3-30B-A3B/configs/train_full_ft_qwen3_30b.yaml: /mnt/data3/models/Qwen3-30B-A3B;
    // the family-and-size rule alone would look for a Qwen/Qwen3-30B)
    ['/mnt/data3/models/Qwen3-30B-A3B', 'Qwen/Qwen3-30B-A3B'],
    // a compressed or fine-tuned checkpoint named after gpt-oss (moreWax/llmcompressor-axolotl_workflow's
    // axolotl_config.yaml: ./gpt-oss-120b-w4a16-experts-4bit-2:4) and an R1 distillation's fine-tune, which is the
    // distillation (the 1.5B does not tie its embeddings as Qwen2.5-1.5B does); a size the catalog lacks is the
    // catalog's nearest entry, Qwen2.5-14B, whose architecture the 14B distillation keeps
    ['./gpt-oss-120b-w4a16-experts-4bit-2:4', 'openai/gpt-oss-120b'],
    ['/ckpt/DeepSeek-R1-Distill-Qwen-1.5B-grpo-step500', 'deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B'],
    // sfasfaffa/DR_SAF verl_drsaf/qwen3_8b.sh: R1 distilled into Qwen3 8B, whose config is Qwen3-8B's.
    ['/path-to-DeepSeek-R1-Distill-Qwen3-8B', 'Qwen/Qwen3-8B'],
    // ChiYeungLaw/LLaMa-EasyFT finetune.sh: `--model_name_or_path /path/to/llama7B`, the size written on the family.
    ['/path/to/llama7B', 'huggyllama/llama-7b'],
    ['/ckpt/r1-distill-qwen-14b-sft', 'Qwen/Qwen2.5-14B'],
    ['~/llm/Mistral-7B-Instruct-v0.2', 'mistralai/Mistral-7B-Instruct-v0.2'],
    // a folder of the Hugging Face cache, as huggingface_hub lays a repository out (PJLAB-CHIP/HPCTransCompile
    // TrainEngine/config/QwenCoder_14b.yaml); an unknown repository by the name its id gives
    // (Qwen2.5-Coder-14B-Instruct is an alias of Qwen2.5-14B's entry: the same architecture)
    [
      '/code/model_hub/models--Qwen--Qwen2.5-Coder-14B-Instruct/snapshots/7fc9a75b07a3f8f325985b8a10af2e73d7cd63c3',
      'Qwen/Qwen2.5-14B',
    ],
    ['/home/u/.cache/huggingface/hub/models--microsoft--phi-2/snapshots/ef382358', 'microsoft/phi-2'],
    ['/root/.cache/huggingface/hub/models--meta-llama--Llama-2-7b-hf', 'meta-llama/Llama-2-7b-hf'],
    ['/x/models--someone--llama-2-7b-sft/snapshots/abc', 'meta-llama/Llama-2-7b-hf'],
    // no family, no size, or a family this table does not name: nothing
    ['/x/my-model', undefined],
    ['/x/llama', undefined],
    ['/x/phi-1.3b', undefined],
    // OPT and Pythia write sizes below a billion in millions; Falcon-H1 is not Falcon
    ['/x/opt-1.3b', 'facebook/opt-1.3b'],
    ['/x/opt-350m', 'facebook/opt-350m'],
    ['/x/pythia-410m-deduped', 'EleutherAI/pythia-410m'],
    ['/x/falcon-7b', 'tiiuae/falcon-7b'],
    ['/x/falcon-h1-7b', 'tiiuae/Falcon-H1-7B-Base'],
    ['/x/adopt-7b', undefined],
    // Hub ids of fine-tunes named after their base (DeepSpeed-Chat's step 3 scripts, microsoft/DeepSpeedExamples)
    ['AdamG012/chat-opt-1.3b-sft-deepspeed', 'facebook/opt-1.3b'],
    ['AdamG012/chat-opt-350m-reward-deepspeed', 'facebook/opt-350m'],
    ['my-org/llama-2-7b-chat-sft', 'meta-llama/Llama-2-7b-hf'],
    ['CohereLabs/command-a-reasoning-08-2025', undefined],
    // Llama-architecture families with names of their own, and other catalog families
    ['someone/codellama-7b-sql', 'codellama/CodeLlama-7b-hf'],
    ['someone/tinyllama-1.1b-sft', 'TinyLlama/TinyLlama-1.1B-Chat-v1.0'],
    ['someone/vicuna-13b-ft', 'lmsys/vicuna-13b-v1.5'],
    ['someone/deepseek-coder-6.7b-ft', 'deepseek-ai/deepseek-coder-6.7b-base'],
    ['someone/qwen1.5-7b-chat-sft', 'Qwen/Qwen1.5-7B'],
    ['someone/gemma-3-1b-it-sft', 'google/gemma-3-1b-pt'],
    ['someone/gemma-3-270m-ft', 'google/gemma-3-270m'],
    ['someone/yi-6b-chat-ft', '01-ai/Yi-6B'],
    ['someone/SmolLM2-360M-sft', 'HuggingFaceTB/SmolLM2-360M'],
    ['someone/starcoder2-3b-ft', 'bigcode/starcoder2-3b'],
    // Miraclove/DevAssistant deepspeed/main/train.sh and pretrain/config.yaml; yuetan1988/lawer-llm app/finetune/run.sh;
    // 3205914485/LuxunGPT scripts/chatglm.sh; ytu-ce-cosmos's Llama 3 fine-tune (ieayvaz/GRPO-notebook)
    ['/home/uework/AiWeb/pwz/github/model/starcoderbase-7b', 'bigcode/starcoderbase-7b'],
    ['/home/uework/model/starcoderbase-3b', 'bigcode/starcoderbase-3b'],
    // (a folder named as a catalog entry is that entry; InternLM2.5's ids are the catalog's aliases of InternLM2's, whose
    // architecture they share)
    ['/root/share/model_repos/internlm2-chat-7b', 'internlm/internlm2-chat-7b'],
    ['/models/internlm2-chat-1_8b', 'internlm/internlm2-chat-1_8b'],
    ['/models/internlm2_5-7b-chat', 'internlm/internlm2-chat-7b'],
    ['/models/internlm2-chat-7b-sft', 'internlm/internlm2-7b'],
    ['/root/LuxunGPT/datasets/chatglm3-6b', 'THUDM/chatglm3-6b'],
    ['/models/chatglm2-6b', 'THUDM/chatglm2-6b'],
    // A family of one size needs no size in the folder's own name (exploreli/ftnl2sql finetune_lora.py loads
    // `e:\code\chatglm\chatglm2`; ChatGLM2 and ChatGLM3 were released as 6B only, TinyLlama as 1.1B only); a folder
    // that is not named after it is not read so
    ['e:\\code\\chatglm\\chatglm2', 'THUDM/chatglm2-6b'],
    ['/models/chatglm3', 'THUDM/chatglm3-6b'],
    ['/data/TinyLlama', 'TinyLlama/TinyLlama-1.1B-Chat-v1.0'],
    ['/data/chatglm2/checkpoints', undefined],
    ['/data/my-chatglm2', undefined],
    ['/models/Baichuan2-13B-Chat-sft', 'baichuan-inc/Baichuan2-13B-Base'],
    ['ytu-ce-cosmos/Turkish-Llama-8b-Instruct-v0.1', 'meta-llama/Meta-Llama-3-8B'],
    ['/data/open_llama_7b_v2', 'openlm-research/open_llama_7b'],
    // Fine-tunes named for themselves: uclaml/SPIN configs/tulu-70B/config.yaml (`/maas-vepfs/models/tulu-70b`), its
    // iterations' Hub ids (UCLA-AGI/zephyr-7b-sft-full-SPIN-iter0); zephyr-7b-gemma is a Gemma
    ['/maas-vepfs/models/tulu-70b', 'meta-llama/Llama-2-70b-hf'],
    ['/x/tulu-65b', 'huggyllama/llama-65b'],
    ['UCLA-AGI/zephyr-7b-sft-full-SPIN-iter0', 'mistralai/Mistral-7B-v0.1'],
    ['/ckpt/zephyr-7b-gemma-sft', 'google/gemma-7b'],
    // skihyeon/DACON-HANSOL-QA's Axolotl notebook fine-tunes a Korean SOLAR
    ['yanolja/KoSOLAR-10.7B-v0.2', 'upstage/SOLAR-10.7B-v1.0'],
    // yyDing1/ScaleQuest run_deepseek_qft.sh: a DeepSeekMath fine-tune in a local folder
    ['models/Deepseek-Math-7B-QFT', 'deepseek-ai/deepseek-llm-7b-base'],
    // FSoft-AI4Code/XMainframe recipes/deepseek/lora_sft.yaml: a full fine-tune of DeepSeek-Coder 7B v1.5 (DeepSeek LLM
    // 7B's architecture) in a cluster folder; DeepSeek with a version names another architecture
    ['/cm/shared/anhdtv7/mainframe_gpt/data/deepseek-7b-ft-full', 'deepseek-ai/deepseek-llm-7b-base'],
    ['/models/deepseek-67b-chat', 'deepseek-ai/deepseek-llm-67b-base'],
    ['/models/DeepSeek-V2-Lite-16B', undefined],
    // the family must be in the last three parts
    ['/llama2/a/b/c/7b', undefined],
    // Kaggle Models as a notebook mounts them, /kaggle/input/<model>/<framework>/<variation>/<version>: the model's and
    // the variation's names (Kaggle's model pages for Gemma, Qwen2.5, Llama 3 and Mistral)
    ['/kaggle/input/gemma/transformers/2b-it/3', 'google/gemma-2b'],
    ['/kaggle/input/qwen2.5/transformers/7b-instruct/1', 'Qwen/Qwen2.5-7B'],
    ['/kaggle/input/llama-3/transformers/8b-chat-hf/1', 'meta-llama/Meta-Llama-3-8B'],
    ['/kaggle/input/mistral/pytorch/7b-instruct-v0.1-hf/1', 'mistralai/Mistral-7B-v0.1'],
    // farmountain/carevoice-gemma4 finetune_qlora.ipynb: Gemma 4 E4B is no catalog entry
    ['/kaggle/input/gemma-4/transformers/gemma-4-e4b-it/1', undefined],
    // Encoders whose sizes are words: Mukku27/deberta-text-classification-fine-tuning's notebook loads DeBERTa-v3-large
    // from a local folder `deberta-v3-large-hf-weights`; the family begins a word (DepRoBERTa, rafalposwiata's RoBERTa
    // pretrained further, is not taken for RoBERTa; nor bert inside another name)
    ['deberta-v3-large-hf-weights', 'microsoft/deberta-v3-large'],
    ['/models/mdeberta-v3-base-finetuned', 'microsoft/mdeberta-v3-base'],
    ['./checkpoints/roberta-large', 'FacebookAI/roberta-large'],
    ['/data/xlm-roberta-base-ner', 'FacebookAI/xlm-roberta-base'],
    ['/data/bert-base-cased-squad', 'google-bert/bert-base-cased'],
    ['/data/distilbert-base-uncased-imdb', 'distilbert/distilbert-base-uncased'],
    ['/data/deproberta-large-depression', undefined],
    ['/data/sentencebert-base-uncased', undefined],
    // Qwen3.5 by its dense sizes: techwithsergiu/qwen-qlora-train configs/qwen35/9b.yaml trains its own text-only
    // upload of Qwen3.5-9B (`techwithsergiu/Qwen3.5-text-9B-bnb-4bit`)
    ['techwithsergiu/Qwen3.5-text-9B-bnb-4bit', 'Qwen/Qwen3.5-9B'],
    ['/models/qwen3.5-27b-instruct', 'Qwen/Qwen3.5-27B'],
    // Versions and sizes joined by underscores: rubenbalbastre/grpo-llm-unlearning config/train.yaml trains on from
    // `./outputs/r2warmup_qwen_qwen2_5_7b_instruct_karl_marx/final_model/` (Qwen2.5-7B-Instruct's output folder);
    // `llama2_7b_chat`; `qwen1_8b` may be Qwen 1.8B, and no family is read from it
    ['./outputs/r2warmup_qwen_qwen2_5_7b_instruct_karl_marx/final_model/', 'Qwen/Qwen2.5-7B'],
    ['/ckpt/llama2_7b_chat', 'meta-llama/Llama-2-7b-hf'],
    ['/ckpt/llama3_1_8b_instruct', 'meta-llama/Llama-3.1-8B'],
    ['/ckpt/qwen1_8b', undefined],
    // A name that says VL keeps the vision tower: Deep-Agent/R1-V src/scripts/run_grpo_vllm_qwen25vl.sh
    // (QWEN_PATH="PATH_TO_QWEN25VL_3B_CKPT") was read as the text-only Qwen2.5-3B; a size the catalog lacks stays unread
    ['PATH_TO_QWEN25VL_3B_CKPT', 'Qwen/Qwen2.5-VL-3B-Instruct'],
    ['/ckpt/qwen2-vl-7b-sft', 'Qwen/Qwen2-VL-7B-Instruct'],
    ['/models/Qwen3-VL-8B-grpo', 'Qwen/Qwen3-VL-8B-Instruct'],
    ['/ckpt/qwen2.5-vl-14b', undefined],
    // A Kaggle model whose slug is the vendor's repository name less its prefix: Kalyankr/nemotron-sft-finetune
    // scripts/train.py loads /kaggle/input/nemotron-3-nano-30b-a3b-bf16/transformers/default/1
    ['/kaggle/input/nemotron-3-nano-30b-a3b-bf16/transformers/default/1', 'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16'],
  ];
  for (const [p, id] of cases) {
    it(`${p} -> ${id ?? 'nothing'}`, () => assert.equal(modelFromPathName(p)?.id, id));
  }
});

describe('modelFromHubName', () => {
  const cases: readonly (readonly [string, string | undefined])[] = [
    // An organisation that publishes base models of the catalog: a missing id is a typo or a new release, not a guess.
    ['meta-llama/Llama-2-13b-chat-hf-v9', undefined],
    ['mistralai/Mistral-7B-v0.9', undefined],
    // One the catalog knows only for fine-tunes of others' bases (Nous-Hermes-2-Mistral-7B-DPO, Hermes-3-Llama-3.1-8B)
    // names its other fine-tunes after their base (chats-bug/jsr-config qlora.yml: Nous-Hermes-Llama2-13b).
    ['NousResearch/Nous-Hermes-Llama2-13b', 'meta-llama/Llama-2-13b-hf'],
    ['HuggingFaceH4/zephyr-7b-gemma-v0.2', 'google/gemma-7b'],
    // A bare name no catalog knows is a folder where the script runs (FreedomIntelligence/LLMZoo
    // scripts/train_chimera_7b.sh: `--model_name_or_path llama_hf_7b`, LLaMA 7B converted to transformers' format).
    ['llama_hf_7b', 'huggyllama/llama-7b'],
    ['my_model', undefined],
  ];
  for (const [id, want] of cases) {
    it(`${id} -> ${want ?? 'nothing'}`, () => assert.equal(modelFromHubName(id)?.id, want));
  }
});
