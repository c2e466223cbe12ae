// A Kubernetes workload that trains (src/analyzers/yaml/kubernetes.ts): the training container's command and args read
// as one launch line at the YAML's own offsets, its env, the nvidia.com/gpu limit, the GPU a node selector names, and
// quick fixes written inside the command's items (writers/task-script.ts). The Job is DATEXIS/DeepICD-R1's
// k8s/train/sft_train_job_7b.yaml, abridged; the other forms are written for these tests. Each expected value is the
// one the test's YAML writes.
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';
import { detectFormat } from '../../../src/analyzers/detect';
import { kubernetesCommandSet } from '../../../src/features/fixes/writers/task-script';
import type { FixFile } from '../../../src/features/fixes/ops';

const JOB = `apiVersion: batch/v1
kind: Job
metadata:
  name: clinical-qwen2p5-instruct-sft
spec:
  template:
    spec:
      containers:
        - name: sft
          image: registry.example/trl-sft
          command: [
            "accelerate",
            "launch",
            "--num_processes", "1",
            "sft/sft_trainer.py",
            "--model_name_or_path", "Qwen/Qwen2.5-7B-Instruct",
            "--bf16", "True",
            "--gradient_checkpointing", "True",
            "--per_device_train_batch_size", "8",   # 2-4 usually fits per H200
            "--gradient_accumulation_steps", "4"
          ]
          env:
            - name: TOKENIZERS_PARALLELISM
              value: 'true'
          resources:
            limits:
              nvidia.com/gpu: "1"
      nodeSelector:
        gpu: b200
      restartPolicy: Never
`;

describe('Kubernetes workload YAML', () => {
  it("a Job's container command list is one launch line: the model, batch and checkpointing, on the selected GPU", () => {
    assert.equal(detectFormat('job.yaml', JOB), 'kubernetes-yaml');
    const r = runFiles({ '/k/job.yaml': JOB }, '/k/job.yaml');
    const s = r.setup;
    assert.ok(s, JSON.stringify(r.problems));
    assert.deepEqual([s.model, s.micro_batch_size, s.gradient_accumulation_steps], ['Qwen/Qwen2.5-7B-Instruct', 8, 4]);
    assert.deepEqual([s.gradient_checkpointing, s.gpus_per_node, s.gpu], ['full', 1, 'B200']);
  });

  it('a pod running `bash -c` with the command as one string, and args after command, and env in the command', () => {
    const pod = `apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      command: ["/bin/bash", "-c"]
      args:
        - torchrun --nproc_per_node=$NGPU train.py --model_name_or_path meta-llama/Llama-3.2-1B --per_device_train_batch_size 2
      env:
        - name: NGPU
          value: "4"
      resources:
        limits:
          nvidia.com/gpu: 4
`;
    assert.equal(detectFormat('pod.yaml', pod), 'kubernetes-yaml');
    const r = runFiles({ '/k/pod.yaml': pod }, '/k/pod.yaml');
    assert.deepEqual(
      [r.setup?.model, r.setup?.gpus_per_node, r.setup?.micro_batch_size],
      ['meta-llama/Llama-3.2-1B', 4, 2],
    );
    // A Deployment serves, it does not train: not read as a workload of these.
    assert.equal(detectFormat('svc.yaml', pod.replace('kind: Pod', 'kind: Deployment')), undefined);
  });

  it("quick fixes are written inside the command's items", () => {
    const file = { file: '/k/job.yaml', text: JOB } as unknown as FixFile;
    const r = kubernetesCommandSet(file, JOB, { path: ['per_device_train_batch_size'], value: 2 });
    assert.ok('text' in r, JSON.stringify(r));
    assert.equal(r.text, JOB.replace('"--per_device_train_batch_size", "8"', '"--per_device_train_batch_size", "2"'));
  });
});
