// Built-in catalog: Encoders the community fine-tunes: sentence embeddings, rerankers, domain BERTs and RoBERTa
// fine-tunes (BERT, RoBERTa and XLM-RoBERTa layers). Pure data.

import { fineTune, hf, type CatalogModel } from './types';

export const ENCODERS: readonly CatalogModel[] = [
  {
    // MiniLM sentence encoders: BERT layers 384 wide.
    id: 'sentence-transformers/all-MiniLM-L6-v2',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 384, intermediate_size: 1536, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 6,
      type_vocab_size: 2, vocab_size: 30522,
    },
    publishedParams: 22_713_216,
    source: hf('sentence-transformers/all-MiniLM-L6-v2'),
  },
  {
    id: 'sentence-transformers/all-MiniLM-L12-v2',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 384, intermediate_size: 1536, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 30522,
    },
    source: hf('sentence-transformers/all-MiniLM-L12-v2'),
  },
  {
    id: 'sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 384, intermediate_size: 1536, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 250037,
    },
    source: hf('sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2'),
  },
  {
    id: 'cross-encoder/ms-marco-MiniLM-L-6-v2',
    config: {
      model_type: 'bert', architectures: ['BertForSequenceClassification'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu',
      hidden_dropout_prob: 0.1, hidden_size: 384, intermediate_size: 1536, layer_norm_eps: 1e-12, max_position_embeddings: 512,
      num_attention_heads: 12, num_hidden_layers: 6, type_vocab_size: 2, vocab_size: 30522,
    },
    source: hf('cross-encoder/ms-marco-MiniLM-L-6-v2'),
  },
  {
    // BGE v1.5: BERT encoders for embeddings.
    id: 'BAAI/bge-small-en-v1.5',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 384, intermediate_size: 1536, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 30522,
    },
    source: hf('BAAI/bge-small-en-v1.5'),
  },
  {
    id: 'intfloat/e5-small-v2',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 384, intermediate_size: 1536, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 30522,
    },
    source: hf('intfloat/e5-small-v2'),
  },
  {
    id: 'BAAI/bge-base-en-v1.5',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 30522,
    },
    source: hf('BAAI/bge-base-en-v1.5'),
  },
  {
    id: 'intfloat/e5-base-v2',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 30522,
    },
    source: hf('intfloat/e5-base-v2'),
  },
  {
    id: 'BAAI/bge-large-en-v1.5',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 1024, intermediate_size: 4096, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 16,
      num_hidden_layers: 24, type_vocab_size: 2, vocab_size: 30522,
    },
    source: hf('BAAI/bge-large-en-v1.5'),
  },
  {
    id: 'intfloat/e5-large-v2',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 1024, intermediate_size: 4096, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 16,
      num_hidden_layers: 24, type_vocab_size: 2, vocab_size: 30522,
    },
    source: hf('intfloat/e5-large-v2'),
  },
  {
    // BGE-M3: XLM-RoBERTa-large with 8,192 positions.
    id: 'BAAI/bge-m3',
    config: {
      model_type: 'xlm-roberta', architectures: ['XLMRobertaModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 1024, intermediate_size: 4096, layer_norm_eps: 1e-05, max_position_embeddings: 8194, num_attention_heads: 16,
      num_hidden_layers: 24, type_vocab_size: 1, vocab_size: 250002,
    },
    source: hf('BAAI/bge-m3'),
  },
  {
    id: 'intfloat/multilingual-e5-large',
    baseModel: 'FacebookAI/xlm-roberta-large',
    config: {
      model_type: 'xlm-roberta', architectures: ['XLMRobertaModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 1024, intermediate_size: 4096, layer_norm_eps: 1e-05, max_position_embeddings: 514, num_attention_heads: 16,
      num_hidden_layers: 24, type_vocab_size: 1, vocab_size: 250002,
    },
    source: fineTune('intfloat/multilingual-e5-large', 'FacebookAI/xlm-roberta-large'),
  },
  {
    id: 'intfloat/multilingual-e5-base',
    baseModel: 'FacebookAI/xlm-roberta-base',
    config: {
      model_type: 'xlm-roberta', architectures: ['XLMRobertaModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-05, max_position_embeddings: 514, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 1, vocab_size: 250002,
    },
    publishedParams: 278_043_648,
    source: fineTune('intfloat/multilingual-e5-base', 'FacebookAI/xlm-roberta-base'),
  },
  {
    id: 'dmis-lab/biobert-base-cased-v1.2',
    baseModel: 'google-bert/bert-base-cased',
    config: {
      model_type: 'bert', architectures: ['BertForMaskedLM'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 28996,
    },
    source: fineTune('dmis-lab/biobert-base-cased-v1.2', 'google-bert/bert-base-cased'),
  },
  {
    id: 'emilyalsentzer/Bio_ClinicalBERT',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 28996,
    },
    source: hf('emilyalsentzer/Bio_ClinicalBERT'),
  },
  {
    // SciBERT: BERT-base with its own 31,090-token vocabulary.
    id: 'allenai/scibert_scivocab_uncased',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 31090,
    },
    source: hf('allenai/scibert_scivocab_uncased'),
  },
  {
    id: 'nlpaueb/legal-bert-base-uncased',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 30522,
    },
    source: hf('nlpaueb/legal-bert-base-uncased'),
  },
  {
    id: 'ProsusAI/finbert',
    baseModel: 'google-bert/bert-base-uncased',
    config: {
      model_type: 'bert', architectures: ['BertForSequenceClassification'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu',
      hidden_dropout_prob: 0.1, hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-12, max_position_embeddings: 512,
      num_attention_heads: 12, num_hidden_layers: 12, type_vocab_size: 2, vocab_size: 30522,
    },
    source: fineTune('ProsusAI/finbert', 'google-bert/bert-base-uncased'),
  },
  {
    id: 'dslim/bert-base-NER',
    baseModel: 'google-bert/bert-base-cased',
    config: {
      model_type: 'bert', architectures: ['BertForTokenClassification'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu',
      hidden_dropout_prob: 0.1, hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-12, max_position_embeddings: 512,
      num_attention_heads: 12, num_hidden_layers: 12, type_vocab_size: 2, vocab_size: 28996,
    },
    source: fineTune('dslim/bert-base-NER', 'google-bert/bert-base-cased'),
  },
  {
    id: 'cardiffnlp/twitter-roberta-base-sentiment-latest',
    baseModel: 'FacebookAI/roberta-base',
    config: {
      model_type: 'roberta', architectures: ['RobertaForSequenceClassification'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu',
      hidden_dropout_prob: 0.1, hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-05, max_position_embeddings: 514,
      num_attention_heads: 12, num_hidden_layers: 12, type_vocab_size: 1, vocab_size: 50265,
    },
    source: fineTune('cardiffnlp/twitter-roberta-base-sentiment-latest', 'FacebookAI/roberta-base'),
  },
  {
    id: 'deepset/roberta-base-squad2',
    baseModel: 'FacebookAI/roberta-base',
    config: {
      model_type: 'roberta', architectures: ['RobertaForQuestionAnswering'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu',
      hidden_dropout_prob: 0.1, hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-05, max_position_embeddings: 514,
      num_attention_heads: 12, num_hidden_layers: 12, type_vocab_size: 1, vocab_size: 50265,
    },
    source: fineTune('deepset/roberta-base-squad2', 'FacebookAI/roberta-base'),
  },
  {
    id: 'cross-encoder/ms-marco-MiniLM-L-12-v2',
    config: {
      model_type: 'bert', architectures: ['BertForSequenceClassification'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu',
      hidden_dropout_prob: 0.1, hidden_size: 384, intermediate_size: 1536, layer_norm_eps: 1e-12, max_position_embeddings: 512,
      num_attention_heads: 12, num_hidden_layers: 12, type_vocab_size: 2, vocab_size: 30522,
    },
    source: hf('cross-encoder/ms-marco-MiniLM-L-12-v2'),
  },
  {
    // GTE: BERT encoders for embeddings.
    id: 'thenlper/gte-small',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 384, intermediate_size: 1536, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 30522,
    },
    source: hf('thenlper/gte-small'),
  },
  {
    id: 'thenlper/gte-base',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 30522,
    },
    source: hf('thenlper/gte-base'),
  },
  {
    id: 'thenlper/gte-large',
    config: {
      model_type: 'bert', architectures: ['BertModel'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 1024, intermediate_size: 4096, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 16,
      num_hidden_layers: 24, type_vocab_size: 2, vocab_size: 30522,
    },
    source: hf('thenlper/gte-large'),
  },
  {
    // BGE rerankers: XLM-RoBERTa cross-encoders.
    id: 'BAAI/bge-reranker-base',
    baseModel: 'FacebookAI/xlm-roberta-base',
    config: {
      model_type: 'xlm-roberta', architectures: ['XLMRobertaForSequenceClassification'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu',
      hidden_dropout_prob: 0.1, hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-05, max_position_embeddings: 514,
      num_attention_heads: 12, num_hidden_layers: 12, type_vocab_size: 1, vocab_size: 250002,
    },
    source: fineTune('BAAI/bge-reranker-base', 'FacebookAI/xlm-roberta-base'),
  },
  {
    id: 'BAAI/bge-reranker-large',
    baseModel: 'FacebookAI/xlm-roberta-large',
    config: {
      model_type: 'xlm-roberta', architectures: ['XLMRobertaForSequenceClassification'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu',
      hidden_dropout_prob: 0.1, hidden_size: 1024, intermediate_size: 4096, layer_norm_eps: 1e-05, max_position_embeddings: 514,
      num_attention_heads: 16, num_hidden_layers: 24, type_vocab_size: 1, vocab_size: 250002,
    },
    source: fineTune('BAAI/bge-reranker-large', 'FacebookAI/xlm-roberta-large'),
  },
  {
    id: 'BAAI/bge-reranker-v2-m3',
    baseModel: 'BAAI/bge-m3',
    config: {
      model_type: 'xlm-roberta', architectures: ['XLMRobertaForSequenceClassification'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu',
      hidden_dropout_prob: 0.1, hidden_size: 1024, intermediate_size: 4096, layer_norm_eps: 1e-05, max_position_embeddings: 8194,
      num_attention_heads: 16, num_hidden_layers: 24, type_vocab_size: 1, vocab_size: 250002,
    },
    source: fineTune('BAAI/bge-reranker-v2-m3', 'BAAI/bge-m3'),
  },
];
