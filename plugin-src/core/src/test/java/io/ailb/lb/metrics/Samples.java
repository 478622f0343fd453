package io.ailb.lb.metrics;

/** Hand-written expositions in the shape vLLM and SGLang serve. */
public final class Samples {
    public static final String VLLM = ""
            + "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
            + "# TYPE vllm:num_requests_running gauge\n"
            + "vllm:num_requests_running{engine=\"0\",model_name=\"qwen\"} 3.0\n"
            + "vllm:num_requests_running{engine=\"1\",model_name=\"qwen\"} 2.0\n"
            + "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n"
            + "# TYPE vllm:num_requests_waiting gauge\n"
            + "vllm:num_requests_waiting{engine=\"0\",model_name=\"qwen\"} 4.0\n"
            + "vllm:num_requests_waiting{engine=\"1\",model_name=\"qwen\"} 1.0\n"
            + "# TYPE vllm:kv_cache_usage_perc gauge\n"
            + "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"qwen\"} 0.5\n"
            + "vllm:kv_cache_usage_perc{engine=\"1\",model_name=\"qwen\"} 0.25\n"
            + "# TYPE vllm:lora_requests_info gauge\n"
            + "vllm:lora_requests_info{max_lora=\"2\",running_lora_adapters=\"old\",waiting_lora_adapters=\"\"}"
            + " 1.7e+09\n"
            + "vllm:lora_requests_info{max_lora=\"2\",running_lora_adapters=\"sql-lora, chat-lora\","
            + "waiting_lora_adapters=\"\"} 1.7000001e+09\n"
            + "# TYPE vllm:time_to_first_token_seconds histogram\n"
            + "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\",model_name=\"qwen\"} 120.0\n"
            + "vllm:time_to_first_token_seconds_sum{model_name=\"qwen\"} 12.5\n";

    public static final String VLLM_V0 = ""
            + "vllm:num_requests_running{model_name=\"llama\"} 1\n"
            + "vllm:num_requests_waiting{model_name=\"llama\"} 0\n"
            + "vllm:gpu_cache_usage_perc{model_name=\"llama\"} 0.125\n";

    public static final String SGLANG = ""
            + "# HELP sglang:num_running_reqs The number of running requests.\n"
            + "# TYPE sglang:num_running_reqs gauge\n"
            + "sglang:num_running_reqs{model_name=\"qwen\",tp_rank=\"0\"} 7.0\n"
            + "# TYPE sglang:num_queue_reqs gauge\n"
            + "sglang:num_queue_reqs{model_name=\"qwen\",tp_rank=\"0\"} 12.0\n"
            + "# TYPE sglang:token_usage gauge\n"
            + "sglang:token_usage{model_name=\"qwen\",tp_rank=\"0\"} 0.75\n";

    private Samples() {}

    /** A minimal vLLM exposition with the given queue and KV-cache usage. */
    public static String vllm(double waiting, double kvUsage) {
        return "vllm:num_requests_running 1\n"
                + "vllm:num_requests_waiting " + waiting + "\n"
                + "vllm:kv_cache_usage_perc " + kvUsage + "\n";
    }
}
