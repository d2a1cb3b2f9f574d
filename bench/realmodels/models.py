"""The benchmark's fixed model list: what is analysed and what is run.

Fixed before ShapeHint's answers on these models were looked at (the first commit that carries
this file): changing the list changes every total, so add models in a commit of their own and
re-take the baseline. Each entry:
  id        short unique name (`--only` takes it)
  package   torchvision | timm | transformers (the tree the file is analysed in, unchanged)
  file      the model's file, relative to its package tree, analysed IN PLACE
  entry     the class whose `forward` runs (annotated mode asserts its tensor inputs' shapes)
  build     a Python expression evaluated in the file's module namespace: small configurations,
            random init, never pretrained weights
  inputs    one concrete input per tensor argument of `forward` (dtype float32 unless said; ids
            are int64 in [0, high))
"""
from __future__ import annotations


def _img(b=2, c=3, h=64, w=64):
    return {"x": {"shape": [b, c, h, w]}}


def _ids(name="input_ids", b=2, t=16, high=100):
    return {name: {"shape": [b, t], "dtype": "int64", "high": high}}


def _px(b=2, h=32, w=32, name="pixel_values"):
    return {name: {"shape": [b, 3, h, w]}}


TV = "torchvision/models/"
TIMM = "timm/models/"
HF = "transformers/models/"
VIT_SMALL = "img_size=32, patch_size=8, embed_dim=32, depth=2, num_heads=2, num_classes=10"

MODELS = [
    # ---- torchvision 0.29.1 --------------------------------------------------------------------
    dict(id="tv_resnet18", package="torchvision", file=TV + "resnet.py", entry="ResNet",
         build="resnet18(num_classes=10)", inputs=_img()),
    dict(id="tv_resnet_bottleneck", package="torchvision", file=TV + "resnet.py", entry="ResNet",
         build="ResNet(Bottleneck, [1, 1, 1, 1], num_classes=10)", inputs=_img(1)),
    dict(id="tv_resnext", package="torchvision", file=TV + "resnet.py", entry="ResNet",
         build="ResNet(Bottleneck, [1, 1, 1, 1], groups=4, width_per_group=8, num_classes=10)", inputs=_img(1)),
    dict(id="tv_vgg11", package="torchvision", file=TV + "vgg.py", entry="VGG",
         build="vgg11(num_classes=10)", inputs=_img(1, h=32, w=32)),
    dict(id="tv_alexnet", package="torchvision", file=TV + "alexnet.py", entry="AlexNet",
         build="AlexNet(num_classes=10)", inputs=_img(1)),
    dict(id="tv_squeezenet", package="torchvision", file=TV + "squeezenet.py", entry="SqueezeNet",
         build="SqueezeNet('1_1', num_classes=10)", inputs=_img()),
    dict(id="tv_mobilenet_v2", package="torchvision", file=TV + "mobilenetv2.py", entry="MobileNetV2",
         build="MobileNetV2(num_classes=10, width_mult=0.5)", inputs=_img()),
    dict(id="tv_mobilenet_v3", package="torchvision", file=TV + "mobilenetv3.py", entry="MobileNetV3",
         build="mobilenet_v3_small(num_classes=10)", inputs=_img()),
    dict(id="tv_efficientnet_b0", package="torchvision", file=TV + "efficientnet.py", entry="EfficientNet",
         build="efficientnet_b0(num_classes=10)", inputs=_img(1)),
    dict(id="tv_efficientnet_v2", package="torchvision", file=TV + "efficientnet.py", entry="EfficientNet",
         build="efficientnet_v2_s(num_classes=10)", inputs=_img(1)),
    dict(id="tv_densenet", package="torchvision", file=TV + "densenet.py", entry="DenseNet",
         build="DenseNet(growth_rate=8, block_config=(2, 2, 2, 2), num_init_features=16, num_classes=10)",
         inputs=_img()),
    dict(id="tv_convnext", package="torchvision", file=TV + "convnext.py", entry="ConvNeXt",
         build="ConvNeXt([CNBlockConfig(16, 32, 1), CNBlockConfig(32, 64, 1), CNBlockConfig(64, None, 1)], "
               "num_classes=10)", inputs=_img()),
    dict(id="tv_regnet", package="torchvision", file=TV + "regnet.py", entry="RegNet",
         build="regnet_y_400mf(num_classes=10)", inputs=_img(1)),
    dict(id="tv_shufflenet", package="torchvision", file=TV + "shufflenetv2.py", entry="ShuffleNetV2",
         build="shufflenet_v2_x0_5(num_classes=10)", inputs=_img()),
    dict(id="tv_mnasnet", package="torchvision", file=TV + "mnasnet.py", entry="MNASNet",
         build="MNASNet(0.5, num_classes=10)", inputs=_img()),
    dict(id="tv_googlenet", package="torchvision", file=TV + "googlenet.py", entry="GoogLeNet",
         build="GoogLeNet(num_classes=10, aux_logits=False, init_weights=False)", inputs=_img(1)),
    dict(id="tv_vit", package="torchvision", file=TV + "vision_transformer.py", entry="VisionTransformer",
         build="VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, "
               "mlp_dim=64, num_classes=10)", inputs=_img(h=32, w=32)),
    dict(id="tv_swin", package="torchvision", file=TV + "swin_transformer.py", entry="SwinTransformer",
         build="SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4], "
               "window_size=[4, 4], num_classes=10)", inputs=_img(1)),
    dict(id="tv_swin_v2", package="torchvision", file=TV + "swin_transformer.py", entry="SwinTransformer",
         build="SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4], "
               "window_size=[4, 4], num_classes=10, block=SwinTransformerBlockV2, "
               "downsample_layer=PatchMergingV2)", inputs=_img(1)),
    dict(id="tv_maxvit", package="torchvision", file=TV + "maxvit.py", entry="MaxVit",
         build="MaxVit(input_size=(64, 64), stem_channels=16, partition_size=4, block_channels=[16, 32], "
               "block_layers=[1, 1], head_dim=8, stochastic_depth_prob=0.0, num_classes=10)", inputs=_img(1)),
    # ---- timm 1.0.31 ---------------------------------------------------------------------------
    dict(id="timm_resnet", package="timm", file=TIMM + "resnet.py", entry="ResNet",
         build="ResNet(block=BasicBlock, layers=(1, 1, 1, 1), num_classes=10)", inputs=_img()),
    dict(id="timm_resnet_bottleneck", package="timm", file=TIMM + "resnet.py", entry="ResNet",
         build="ResNet(block=Bottleneck, layers=(1, 1, 1, 1), num_classes=10, stem_type='deep', "
               "stem_width=16)", inputs=_img(1)),
    dict(id="timm_efficientnet_b0", package="timm", file=TIMM + "efficientnet.py", entry="EfficientNet",
         build="efficientnet_b0(num_classes=10)", inputs=_img(1)),
    dict(id="timm_mobilenetv3", package="timm", file=TIMM + "mobilenetv3.py", entry="MobileNetV3",
         build="mobilenetv3_small_050(num_classes=10)", inputs=_img()),
    dict(id="timm_convnext", package="timm", file=TIMM + "convnext.py", entry="ConvNeXt",
         build="ConvNeXt(depths=(1, 1, 1, 1), dims=(16, 32, 64, 128), num_classes=10)", inputs=_img()),
    dict(id="timm_regnet", package="timm", file=TIMM + "regnet.py", entry="RegNet",
         build="regnetx_002(num_classes=10)", inputs=_img(1)),
    dict(id="timm_densenet", package="timm", file=TIMM + "densenet.py", entry="DenseNet",
         build="DenseNet(growth_rate=8, block_config=(2, 2, 2, 2), num_classes=10)", inputs=_img()),
    dict(id="timm_vgg", package="timm", file=TIMM + "vgg.py", entry="VGG",
         build="VGG([16, 'M', 32, 'M', 64, 'M'], num_classes=10)", inputs=_img(1)),
    dict(id="timm_vit", package="timm", file=TIMM + "vision_transformer.py", entry="VisionTransformer",
         build="VisionTransformer(%s)" % VIT_SMALL, inputs=_img(h=32, w=32)),
    dict(id="timm_deit", package="timm", file=TIMM + "deit.py", entry="VisionTransformerDistilled",
         build="VisionTransformerDistilled(%s)" % VIT_SMALL, inputs=_img(h=32, w=32)),
    dict(id="timm_beit", package="timm", file=TIMM + "beit.py", entry="Beit",
         build="Beit(%s)" % VIT_SMALL, inputs=_img(h=32, w=32)),
    dict(id="timm_eva", package="timm", file=TIMM + "eva.py", entry="Eva",
         build="Eva(%s)" % VIT_SMALL, inputs=_img(h=32, w=32)),
    dict(id="timm_swin", package="timm", file=TIMM + "swin_transformer.py", entry="SwinTransformer",
         build="SwinTransformer(img_size=64, patch_size=4, window_size=4, embed_dim=16, depths=(2, 2), "
               "num_heads=(2, 4), num_classes=10)", inputs=_img(1)),
    dict(id="timm_mixer", package="timm", file=TIMM + "mlp_mixer.py", entry="MlpMixer",
         build="MlpMixer(num_classes=10, img_size=32, patch_size=8, num_blocks=2, embed_dim=32)",
         inputs=_img(h=32, w=32)),
    dict(id="timm_ghostnet", package="timm", file=TIMM + "ghostnet.py", entry="GhostNet",
         build="ghostnet_050(num_classes=10)", inputs=_img()),
    dict(id="timm_rexnet", package="timm", file=TIMM + "rexnet.py", entry="RexNet",
         build="RexNet(num_classes=10, width_mult=0.5)", inputs=_img()),
    dict(id="timm_metaformer", package="timm", file=TIMM + "metaformer.py", entry="MetaFormer",
         build="MetaFormer(depths=(1, 1, 1, 1), dims=(16, 32, 64, 128), num_classes=10)", inputs=_img()),
    # ---- transformers 4.57.6 (eager attention: the attention code then lies in the model's file) --
    dict(id="hf_bert", package="transformers", file=HF + "bert/modeling_bert.py", entry="BertModel",
         build="BertModel(BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, "
               "intermediate_size=64, max_position_embeddings=64, attn_implementation='eager'))", inputs=_ids()),
    dict(id="hf_gpt2", package="transformers", file=HF + "gpt2/modeling_gpt2.py", entry="GPT2LMHeadModel",
         build="GPT2LMHeadModel(GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=2, n_positions=64, "
               "attn_implementation='eager'))", inputs=_ids()),
    dict(id="hf_llama", package="transformers", file=HF + "llama/modeling_llama.py", entry="LlamaForCausalLM",
         build="LlamaForCausalLM(LlamaConfig(vocab_size=100, hidden_size=32, intermediate_size=64, "
               "num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64, "
               "attn_implementation='eager'))", inputs=_ids()),
    dict(id="hf_mistral", package="transformers", file=HF + "mistral/modeling_mistral.py", entry="MistralModel",
         build="MistralModel(MistralConfig(vocab_size=100, hidden_size=32, intermediate_size=64, "
               "num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64, "
               "attn_implementation='eager'))", inputs=_ids()),
    dict(id="hf_t5", package="transformers", file=HF + "t5/modeling_t5.py", entry="T5Model",
         build="T5Model(T5Config(vocab_size=100, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4, "
               "attn_implementation='eager'))",
         inputs=dict(_ids(t=12), **_ids("decoder_input_ids", t=8))),
    dict(id="hf_bart", package="transformers", file=HF + "bart/modeling_bart.py", entry="BartModel",
         build="BartModel(BartConfig(vocab_size=100, d_model=32, encoder_layers=2, decoder_layers=2, "
               "encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, "
               "max_position_embeddings=64, attn_implementation='eager'))", inputs=_ids(t=12)),
    dict(id="hf_whisper", package="transformers", file=HF + "whisper/modeling_whisper.py", entry="WhisperModel",
         build="WhisperModel(WhisperConfig(vocab_size=100, d_model=32, encoder_layers=2, decoder_layers=2, "
               "encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, "
               "num_mel_bins=16, max_source_positions=32, max_target_positions=32, pad_token_id=0, bos_token_id=1, "
               "eos_token_id=2, decoder_start_token_id=3, attn_implementation='eager'))",
         inputs={"input_features": {"shape": [1, 16, 64]},
                 "decoder_input_ids": {"shape": [1, 8], "dtype": "int64", "high": 100}}),
    dict(id="hf_clip", package="transformers", file=HF + "clip/modeling_clip.py", entry="CLIPModel",
         build="CLIPModel(CLIPConfig(text_config=dict(vocab_size=100, hidden_size=32, intermediate_size=64, "
               "num_hidden_layers=2, num_attention_heads=2, max_position_embeddings=32), "
               "vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, "
               "image_size=32, patch_size=8), projection_dim=16, attn_implementation='eager'))",
         inputs=dict(_ids(t=8), **_px())),
    dict(id="hf_vit", package="transformers", file=HF + "vit/modeling_vit.py", entry="ViTModel",
         build="ViTModel(ViTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, "
               "image_size=32, patch_size=8, attn_implementation='eager'))", inputs=_px()),
    dict(id="hf_distilbert", package="transformers", file=HF + "distilbert/modeling_distilbert.py",
         entry="DistilBertModel",
         build="DistilBertModel(DistilBertConfig(vocab_size=100, dim=32, n_layers=2, n_heads=2, hidden_dim=64, "
               "max_position_embeddings=64, attn_implementation='eager'))", inputs=_ids()),
    dict(id="hf_convnext", package="transformers", file=HF + "convnext/modeling_convnext.py", entry="ConvNextModel",
         build="ConvNextModel(ConvNextConfig(hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1]))",
         inputs=_px(1, 64, 64)),
    dict(id="hf_swin", package="transformers", file=HF + "swin/modeling_swin.py", entry="SwinModel",
         build="SwinModel(SwinConfig(image_size=32, patch_size=4, embed_dim=16, depths=[2, 2], num_heads=[2, 4], "
               "window_size=4, attn_implementation='eager'))", inputs=_px(1)),
    dict(id="hf_resnet", package="transformers", file=HF + "resnet/modeling_resnet.py", entry="ResNetModel",
         build="ResNetModel(ResNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1]))",
         inputs=_px(2, 64, 64)),
]

PACKAGES = ("torchvision", "timm", "transformers")



