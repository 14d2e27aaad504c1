<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ko_KR">
<context>
    <name>ChatFormat</name>
    <message>
        <location filename="../app/engine/engine_maps.cpp" line="25" />
        <source>built-in completion format: the file has no chat template, so the conversation is sent as plain text for the model to continue</source>
        <translation>내장 이어 쓰기 형식: 파일에 채팅 템플릿이 없어 대화를 모델이 이어 쓸 평문으로 보냅니다</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_maps.cpp" line="28" />
        <source>your chat template for this model</source>
        <translation>이 모델에 지정한 채팅 템플릿</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_maps.cpp" line="29" />
        <source>the model's own chat template</source>
        <translation>모델 자체의 채팅 템플릿</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_maps.cpp" line="38" />
        <source>built-in %1 format</source>
        <translation>내장 %1 형식</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_maps.cpp" line="39" />
        <source>built-in %1 format (your override for this model)</source>
        <translation>내장 %1 형식 (이 모델에 직접 지정)</translation>
    </message>
</context>
<context>
    <name>ChatTemplateSettings</name>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="12" />
        <source>The model file's template</source>
        <translation>모델 파일의 템플릿</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="12" />
        <source>Built-in: </source>
        <translation>내장: </translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="12" />
        <source>Custom (Jinja)</source>
        <translation>사용자 지정 (Jinja)</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="26" />
        <source>Chat template</source>
        <translation>채팅 템플릿</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="32" />
        <source>In use: </source>
        <translation>사용 중: </translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="32" />
        <source>Load a model to see its chat template.</source>
        <translation>모델을 불러오면 채팅 템플릿을 볼 수 있습니다.</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="51" />
        <source>(the file has no chat template)</source>
        <translation>(파일에 채팅 템플릿이 없습니다)</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="51" />
        <source>{% for m in messages %}…{% endfor %}</source>
        <translation>{% for m in messages %}…{% endfor %}</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="57" />
        <source>Use this template</source>
        <translation>이 템플릿 사용</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <location filename="../ui/ChatView.qml" line="48" />
        <source>Long text pasted (%1 characters). Treat it as a document, with its cost shown before anything is sent?</source>
        <translation>긴 텍스트를 붙여 넣었습니다 (%1자). 보내기 전에 비용을 보여 주는 문서로 다룰까요?</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="51" />
        <source>Treat as document</source>
        <translation>문서로 다루기</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="55" />
        <source>Keep as message</source>
        <translation>메시지로 두기</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="64" />
        <source>Attach document</source>
        <translation>문서 첨부</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="66" />
        <source>Text, Markdown or PDF (Ctrl+D), or drop a file on the window</source>
        <translation>텍스트, Markdown, PDF (Ctrl+D), 또는 창에 파일을 끌어다 놓기</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="79" />
        <source>Start a verse, e.g. “Genesis 1⏎1 In the beginning” — Enter sends, Shift+Enter newline</source>
        <translation>구절을 시작해 보세요. 예: “Genesis 1⏎1 In the beginning” — Enter 보내기, Shift+Enter 줄바꿈</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="80" />
        <source>Message — Enter sends, Shift+Enter newline</source>
        <translation>메시지 — Enter 보내기, Shift+Enter 줄바꿈</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="95" />
        <source>Stop</source>
        <translation>중지</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="95" />
        <location filename="../app/chat_controller.cpp" line="746" />
        <source>Send</source>
        <translation>보내기</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="99" />
        <source>Regenerate</source>
        <translation>다시 생성</translation>
    </message>
</context>
<context>
    <name>DocumentCard</name>
    <message>
        <location filename="../ui/DocumentCard.qml" line="32" />
        <source>Loading document: %1 %2%</source>
        <translation>문서 불러오는 중: %1 %2%</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="34" />
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="45" />
        <source>Document “%1”</source>
        <translation>문서 “%1”</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="52" />
        <source>already stored (same content)</source>
        <translation>이미 저장됨 (같은 내용)</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="59" />
        <source>%1 · %2 · %3</source>
        <translation>%1 · %2 · %3</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="67" />
        <source>Encoding: %1</source>
        <translation>인코딩: %1</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="73" />
        <source>tokens</source>
        <translation>토큰</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="76" />
        <source>%1 (this model's tokenizer)</source>
        <translation>%1 (이 모델의 토크나이저 기준)</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="76" />
        <source>not counted yet</source>
        <translation>아직 세지 않음</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="78" />
        <source>KV cache</source>
        <translation>KV 캐시</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="80" />
        <source>%1 tokens × %2 per token (%3) = %4</source>
        <translation>%1 토큰 × 토큰당 %2 (%3) = %4</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="84" />
        <source>context</source>
        <translation>컨텍스트</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="88" />
        <source>needs %1 of %2 tokens with this conversation: %3</source>
        <translation>이 대화와 함께 %2 토큰 중 %1 토큰 필요: %3</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="90" />
        <location filename="../ui/DocumentCard.qml" line="98" />
        <source>fits</source>
        <translation>들어감</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="90" />
        <location filename="../ui/DocumentCard.qml" line="98" />
        <source>does not fit</source>
        <translation>들어가지 않음</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="93" />
        <source>memory</source>
        <translation>메모리</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="96" />
        <source>%1 free (%2): %3</source>
        <translation>%1 여유 (%2): %3</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="97" />
        <source>device</source>
        <translation>장치</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="97" />
        <source>RAM</source>
        <translation>RAM</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="100" />
        <source>plan</source>
        <translation>계획</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="107" />
        <source> (no time estimate before a reply has measured the speed)</source>
        <translation> (답변으로 속도를 재기 전에는 시간을 추정하지 않습니다)</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="112" />
        <source>Send whole</source>
        <translation>통째로 보내기</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="115" />
        <source>The text becomes your message; its KV stays in the cache for follow-up questions (Ctrl+Shift+W).</source>
        <translation>텍스트가 메시지가 되고, 그 KV는 이어지는 질문을 위해 캐시에 남습니다 (Ctrl+Shift+W).</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="116" />
        <source>Only when it fits the context window and the free memory.</source>
        <translation>컨텍스트 창과 여유 메모리에 들어갈 때만 가능합니다.</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="120" />
        <source>Summarize</source>
        <translation>요약</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="124" />
        <source>Chunk, summarize, merge (Ctrl+Shift+S). Cancel at any point; it resumes where it stopped.</source>
        <translation>나누고, 요약하고, 합칩니다 (Ctrl+Shift+S). 언제든 취소할 수 있고, 멈춘 곳에서 다시 이어집니다.</translation>
    </message>
</context>
<context>
    <name>DocumentLoader</name>
    <message>
        <location filename="../app/documents/document_loader.cpp" line="93" />
        <source>Cannot read “%1” as a PDF: %2.</source>
        <translation>“%1”을(를) PDF로 읽을 수 없습니다: %2.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_loader.cpp" line="148" />
        <source>Cannot open “%1”: %2.</source>
        <translation>“%1”을(를) 열 수 없습니다: %2.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_loader.cpp" line="181" />
        <source>Pasted text</source>
        <translation>붙여 넣은 텍스트</translation>
    </message>
    <message>
        <location filename="../app/documents/document_loader.cpp" line="285" />
        <source>The stored document %1 cannot be read back.</source>
        <translation>저장된 문서 %1을(를) 다시 읽을 수 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_loader.cpp" line="342" />
        <source>Document %1 is not stored.</source>
        <translation>문서 %1이(가) 저장되어 있지 않습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_loader.cpp" line="394" />
        <source>Loading the document failed: %1</source>
        <translation>문서를 불러오지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/documents/document_loader.cpp" line="396" />
        <source>Loading the document failed.</source>
        <translation>문서를 불러오지 못했습니다.</translation>
    </message>
</context>
<context>
    <name>EngineWorker</name>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="138" />
        <location filename="../app/engine/engine_worker.cpp" line="193" />
        <source>No model is loaded.</source>
        <translation>불러온 모델이 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="213" />
        <source>Saving the KV snapshot failed: %1</source>
        <translation>KV 스냅숏을 저장하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="231" />
        <source>Keeping the KV snapshots within their budget failed: %1</source>
        <translation>KV 스냅숏을 예산 안으로 유지하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="254" />
        <source>no snapshot saved</source>
        <translation>저장된 스냅숏 없음</translation>
    </message>
</context>
<context>
    <name>KvQualityProbe</name>
    <message>
        <location filename="../app/engine/kv_quality_probe.cpp" line="54" />
        <source>Measuring the KV types failed: %1</source>
        <translation>KV 형식 측정에 실패했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/engine/kv_quality_probe.cpp" line="56" />
        <source>Measuring the KV types failed: an unknown exception</source>
        <translation>KV 형식 측정에 실패했습니다: 알 수 없는 예외</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <location filename="../ui/Main.qml" line="51" />
        <source>Open a GGUF model</source>
        <translation>GGUF 모델 열기</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="52" />
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 모델 (*.gguf)</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="52" />
        <location filename="../ui/Main.qml" line="58" />
        <source>All files (*)</source>
        <translation>모든 파일 (*)</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="57" />
        <source>Attach a document</source>
        <translation>문서 첨부</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="58" />
        <source>Documents (*.txt *.md *.markdown *.pdf)</source>
        <translation>문서 (*.txt *.md *.markdown *.pdf)</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="81" />
        <source>kvchat</source>
        <translation>kvchat</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="100" />
        <source>Model</source>
        <translation>모델</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="107" />
        <source>file</source>
        <translation>파일</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="108" />
        <source>architecture</source>
        <translation>아키텍처</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="108" />
        <source>, tokenizer </source>
        <translation>, 토크나이저 </translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="109" />
        <source>chat format</source>
        <translation>채팅 형식</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="110" />
        <source>parameters</source>
        <translation>매개변수</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="111" />
        <source>shape</source>
        <translation>구조</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="111" />
        <source>%1 layers, dim %2, %3 heads / %4 KV heads × %5, FFN %6, vocab %7</source>
        <translation>레이어 %1개, 차원 %2, 헤드 %3개 / KV 헤드 %4개 × %5, FFN %6, 어휘 %7</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="114" />
        <source>details</source>
        <translation>세부 사항</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="114" />
        <source>RoPE %1 (scaling %2), FFN %3</source>
        <translation>RoPE %1 (스케일링 %2), FFN %3</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="115" />
        <source>, score soft-cap %1</source>
        <translation>, 점수 소프트캡 %1</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="116" />
        <source>, logit soft-cap %1</source>
        <translation>, 로짓 소프트캡 %1</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="117" />
        <source>, %1 of %2 layers use a %3-token window</source>
        <translation>, 레이어 %2개 중 %1개가 %3 토큰 창 사용</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="118" />
        <source>context</source>
        <translation>컨텍스트</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="118" />
        <source>%1 tokens trained, %2 in use</source>
        <translation>학습 %1 토큰, 사용 중 %2</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="119" />
        <source>tensor types</source>
        <translation>텐서 형식</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="120" />
        <source>weights</source>
        <translation>가중치</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="121" />
        <source>engine</source>
        <translation>엔진</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="167" />
        <source>Loading model… %1%</source>
        <translation>모델 불러오는 중… %1%</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="170" />
        <source>No model</source>
        <translation>모델 없음</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="181" />
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="186" />
        <source>Tiny demo model (2.8M parameters, King James Bible): it continues scripture, it does not answer. Open a real GGUF to chat.</source>
        <translation>작은 데모 모델 (매개변수 280만 개, 킹 제임스 성경): 성경 구절을 이어 쓸 뿐 대답하지는 않습니다. 대화하려면 실제 GGUF 모델을 여세요.</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="192" />
        <source>Model info</source>
        <translation>모델 정보</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="197" />
        <source>Open model…</source>
        <translation>모델 열기…</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="201" />
        <source>Recent</source>
        <translation>최근</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="213" />
        <source>Settings</source>
        <translation>설정</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="218" />
        <location filename="../app/chat_controller.cpp" line="748" />
        <source>Memory</source>
        <translation>메모리</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="227" />
        <source>Model error: </source>
        <translation>모델 오류: </translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="228" />
        <source>Database error: </source>
        <translation>데이터베이스 오류: </translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="229" />
        <source>Not saved: </source>
        <translation>저장되지 않음: </translation>
    </message>
</context>
<context>
    <name>MemoryPanel</name>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="39" />
        <source>Memory</source>
        <translation>메모리</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="47" />
        <source>Last reply: %1 tok/s · first token after %2 ms · %3 of %4 prompt tokens evaluated</source>
        <translation>마지막 답변: %1 토큰/초 · 첫 토큰까지 %2 ms · 프롬프트 토큰 %4개 중 %3개 계산</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="53" />
        <source>Snapshot</source>
        <translation>스냅숏</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="54" />
        <source>After each reply the conversation's KV cache is saved to disk, so that reopening the conversation later restores it instead of computing every earlier token again. This line says whether the last opening could use it, and how much disk it takes.</source>
        <translation>답변이 끝날 때마다 대화의 KV 캐시를 디스크에 저장해 두어, 나중에 대화를 다시 열 때 앞선 토큰을 모두 다시 계산하지 않고 복원합니다. 이 줄은 마지막으로 열 때 스냅숏을 쓸 수 있었는지와 디스크를 얼마나 차지하는지 알려 줍니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="63" />
        <source>
Snapshot on disk: %1</source>
        <translation>
디스크의 스냅숏: %1</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="75" />
        <source>Last save wrote %1 (whole journal: %2)</source>
        <translation>마지막 저장: %1 기록 (저널 전체 다시 씀: %2)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="76" />
        <source>Last save appended %1 (%2 tokens)</source>
        <translation>마지막 저장: %1 추가 (%2 토큰)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="78" />
        <source>This conversation's journal: %1
</source>
        <translation>이 대화의 저널: %1
</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="80" />
        <source>All snapshots: %1 of %2 budget</source>
        <translation>모든 스냅숏: 예산 %2 중 %1</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="81" />
        <source>All snapshots: %1 (no budget)</source>
        <translation>모든 스냅숏: %1 (예산 없음)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="82" />
        <source> · %1 least recently used evicted</source>
        <translation> · 가장 오래 쓰지 않은 %1개 삭제</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="98" />
        <source>Two sessions share the weights (%1): chat KV %2 (%3 tokens) · summary job KV %4 (%5 tokens) · together %6 of %7 %8 · sessions of the larger size that fit: %9</source>
        <translation>두 세션이 가중치(%1)를 함께 씁니다: 채팅 KV %2 (%3 토큰) · 요약 작업 KV %4 (%5 토큰) · 합계 %6 / %7 %8 · 더 큰 쪽 크기로 들어가는 세션 수: %9</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="101" />
        <source>KV budget</source>
        <translation>KV 예산</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="101" />
        <source>available</source>
        <translation>사용 가능</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="107" />
        <source>This conversation's engine memory</source>
        <translation>이 대화의 엔진 메모리</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="108" />
        <source>The bar divides the memory this conversation uses. The weights are what the model learned: fixed in size and shared by every conversation. The KV cache is the model's working notes for this conversation, the keys and values of every token so far: it grows with each token. Reserved but empty KV blocks, and scratch buffers for one step of computation, make up the rest.</source>
        <translation>막대는 이 대화가 쓰는 메모리를 나눠 보여 줍니다. 가중치는 모델이 학습한 내용으로, 크기가 정해져 있고 모든 대화가 함께 씁니다. KV 캐시는 이 대화를 위한 모델의 작업 메모로, 지금까지의 모든 토큰의 Key와 Value이며 토큰마다 늘어납니다. 나머지는 예약했지만 아직 빈 KV 블록과, 한 단계 계산에 쓰는 작업 버퍼입니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="117" />
        <source>weights</source>
        <translation>가중치</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="118" />
        <location filename="../ui/MemoryPanel.qml" line="204" />
        <source>KV used</source>
        <translation>사용 중인 KV</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="119" />
        <source>KV allocated, empty</source>
        <translation>할당되었지만 빈 KV</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="120" />
        <source>scratch</source>
        <translation>작업 버퍼</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="148" />
        <source>%1: weights %2 · KV pool %3 · scratch %4 on the device</source>
        <translation>%1: 장치의 가중치 %2 · KV 풀 %3 · 작업 버퍼 %4</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="157" />
        <source>VRAM: %2 free of %3 (all processes) · %1 resident in this process</source>
        <translation>VRAM: %3 중 %2 여유 (모든 프로세스) · 이 프로세스가 %1 사용</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="158" />
        <source>Machine: %1 resident in this process · %2 available of %3</source>
        <translation>컴퓨터: 이 프로세스가 %1 사용 · %3 중 %2 사용 가능</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="174" />
        <source>KV cache</source>
        <translation>KV 캐시</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="175" />
        <source>To write each new token the model looks back at every earlier token through its key and value vectors. Keeping them (the KV cache) instead of computing them again turns work that grows with the square of the length into a lookup, at a price in memory that grows with every token: 2 (K and V) × layers × tokens × KV heads × head size × bytes per value. The line below is this model's formula with its numbers.</source>
        <translation>모델은 새 토큰을 하나 만들 때마다 앞선 모든 토큰을 그 Key와 Value 벡터로 다시 살펴봅니다. 이를 다시 계산하지 않고 보관해 두면(KV 캐시) 길이의 제곱으로 늘어나는 계산이 조회로 바뀌는 대신, 토큰마다 늘어나는 메모리를 치릅니다: 2 (K와 V) × 레이어 × 토큰 × KV 헤드 × 헤드 크기 × 값당 바이트. 아래 줄은 이 모델의 숫자를 넣은 식입니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="183" />
        <source>2 × %1 layers × %2 tokens × %3 kv_heads × %4 head_dim × %5 bytes (%6)
= %7 bytes (%8)</source>
        <translation>2 × 레이어 %1 × 토큰 %2 × kv_heads %3 × head_dim %4 × %5 바이트 (%6)
= %7 바이트 (%8)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="196" />
        <source>%1 of %2 layers use a %3-token window: %4 freed by the window; without it the KV would be %5</source>
        <translation>레이어 %2개 중 %1개가 %3 토큰 창을 사용: 창 덕분에 %4 절약, 창이 없다면 KV는 %5</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="205" />
        <source>KV allocated</source>
        <translation>할당된 KV</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="205" />
        <source>%1  (%2 blocks of %3 tokens)</source>
        <translation>%1  (%3 토큰짜리 블록 %2개)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="206" />
        <source>fragmentation</source>
        <translation>단편화</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="207" />
        <source>per token</source>
        <translation>토큰당</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="208" />
        <source>per layer</source>
        <translation>레이어당</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="208" />
        <source> used in each of %1 layers</source>
        <translation> (레이어 %1개 각각에서 사용)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="209" />
        <source>peak</source>
        <translation>최고치</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="209" />
        <source> allocated</source>
        <translation> 할당</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="225" />
        <source>Document “%1”: %2 tokens × %3 = %4, %5% of the KV used (%6)</source>
        <translation>문서 “%1”: %2 토큰 × %3 = %4, 사용 중인 KV의 %5% (%6)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="245" />
        <source>Context</source>
        <translation>컨텍스트</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="246" />
        <source>The context is how many tokens the model can see at once, your messages and its replies together. When it is full, the policy chosen in Settings decides what happens: stop, drop the oldest turns, or shift the window past the oldest half.</source>
        <translation>컨텍스트는 모델이 한 번에 볼 수 있는 토큰 수로, 사용자의 메시지와 모델의 답변을 합친 것입니다. 가득 차면 설정에서 고른 정책에 따라 멈추거나, 가장 오래된 차례를 빼거나, 오래된 절반을 넘겨 창을 옮깁니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="249" />
        <source>Context: %1 of %2 tokens (%3%)</source>
        <translation>컨텍스트: %2 토큰 중 %1 토큰 (%3%)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="263" />
        <source>The context is almost full. Policy “%1”: </source>
        <translation>컨텍스트가 거의 찼습니다. 정책 “%1”: </translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="264" />
        <source>the oldest half of the conversation after the system prompt will be discarded.</source>
        <translation>시스템 프롬프트 뒤의 가장 오래된 대화 절반을 버립니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="265" />
        <source>the oldest whole turns will be dropped and the rest re-evaluated.</source>
        <translation>가장 오래된 차례들을 통째로 빼고 나머지를 다시 계산합니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="266" />
        <source>new tokens will be refused; start a new chat or edit an earlier message.</source>
        <translation>새 토큰을 받지 않습니다. 새 대화를 시작하거나 이전 메시지를 고치세요.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="271" />
        <source>Blocks: %1 used · %2 free in the pool</source>
        <translation>블록: 사용 %1 · 풀의 여유 %2</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="272" />
        <source>The KV cache is not reserved for the whole context up front: it grows in small blocks of a fixed number of tokens as the conversation lengthens (paging). Only the last block can be partly empty, so almost no memory is lost to fragmentation, and blocks freed by a shorter conversation return to the pool for the next one.</source>
        <translation>KV 캐시는 컨텍스트 전체만큼 미리 잡아 두지 않고, 대화가 길어짐에 따라 정해진 토큰 수의 작은 블록 단위로 늘어납니다(페이징). 마지막 블록만 일부 비어 있을 수 있어 단편화로 버려지는 메모리가 거의 없고, 짧아진 대화가 내놓은 블록은 풀로 돌아가 다음 대화가 씁니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="291" />
        <source>KV bytes over the conversation</source>
        <translation>대화가 진행되며 늘어난 KV 바이트</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="333" />
        <source>What each KV type would cost</source>
        <translation>KV 형식별 비용</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="334" />
        <source>Keys and values can be stored with fewer bits: q8_0 takes about half the memory of f16, q4_0 about a quarter, so a longer context or more conversations fit. The price is accuracy: the quality column shows how far the next-token probabilities move (KL divergence) and how often the most likely token stays the same.</source>
        <translation>Key와 Value를 더 적은 비트로 저장할 수 있습니다. q8_0은 f16의 약 절반, q4_0은 약 4분의 1 메모리만 써서 더 긴 컨텍스트나 더 많은 대화가 들어갑니다. 대가는 정확도입니다. 품질 열은 다음 토큰 확률이 얼마나 달라지는지(KL 발산)와 가장 그럴듯한 토큰이 얼마나 자주 그대로인지를 보여 줍니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="341" />
        <source>type</source>
        <translation>형식</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="342" />
        <source>bytes/token</source>
        <translation>바이트/토큰</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="343" />
        <source>max context</source>
        <translation>최대 컨텍스트</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="345" />
        <source>quality*</source>
        <translation>품질*</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="345" />
        <source>quality* (demo model's)</source>
        <translation>품질* (데모 모델 기준)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="356" />
        <source>KL %1, %2%</source>
        <translation>KL %1, %2%</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="359" />
        <source>KL 4e-8, 100%</source>
        <translation>KL 4e-8, 100%</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="359" />
        <source>baseline</source>
        <translation>기준</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="360" />
        <source>KL 1.9e-5, 99.75%</source>
        <translation>KL 1.9e-5, 99.75%</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="361" />
        <source>KL 6.0e-3, 95.0%</source>
        <translation>KL 6.0e-3, 95.0%</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="369" />
        <source> tokens</source>
        <translation> 토큰</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="382" />
        <source>max context: what fits in the available RAM, at most the trained context. </source>
        <translation>최대 컨텍스트: 사용 가능한 RAM에 들어가는 길이, 학습된 컨텍스트 이하. </translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="384" />
        <source>*Measured on this model (%1 tokens of a built-in text) against f16 KV: mean KL divergence, top-1 agreement.</source>
        <translation>*이 모델에서 내장 텍스트 %1 토큰으로 f16 KV와 비교해 측정: 평균 KL 발산, top-1 일치율.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="385" />
        <source>*Measured on the demo model against f16 KV: mean KL divergence, top-1 agreement (docs/KV_CACHE.md).</source>
        <translation>*데모 모델에서 f16 KV와 비교해 측정: 평균 KL 발산, top-1 일치율 (docs/KV_CACHE.md).</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="386" />
        <source> Not yet measured on the loaded model: its own figures replace these when they are.</source>
        <translation> 불러온 모델에서는 아직 측정하지 않았습니다. 측정되면 그 값으로 바뀝니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="389" />
        <source>Conversations of this length that would fit in the available memory: %1</source>
        <translation>사용 가능한 메모리에 들어가는 이 길이의 대화 수: %1</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="395" />
        <source>How many conversations fit</source>
        <translation>몇 개의 대화가 들어가는가</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="396" />
        <source>Every conversation needs a KV cache of its own while the weights are shared. So the memory one conversation takes at this length decides how many can be held side by side: the same arithmetic limits how many people a server can answer at once, and why shorter contexts or smaller KV types let more fit.</source>
        <translation>가중치는 함께 쓰지만 대화마다 자기 KV 캐시가 필요합니다. 그래서 이 길이에서 대화 하나가 차지하는 메모리가 동시에 몇 개를 둘 수 있는지를 정합니다. 서버가 한 번에 몇 명에게 답할 수 있는지도 같은 계산으로 정해지며, 컨텍스트를 줄이거나 더 작은 KV 형식을 쓰면 더 많이 들어갑니다.</translation>
    </message>
</context>
<context>
    <name>MessageBubble</name>
    <message>
        <location filename="../ui/MessageBubble.qml" line="43" />
        <source>Document “%1” · %2 tokens, sent whole (its KV stays in the cache)</source>
        <translation>문서 “%1” · %2 토큰, 통째로 보냄 (그 KV는 캐시에 남음)</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="45" />
        <source>Summary from %1 partial summaries, %2 merge level(s)%3 · %4 tokens evaluated · %5 s</source>
        <translation>부분 요약 %1개에서 만든 요약, 병합 %2단계%3 · %4 토큰 계산 · %5초</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="47" />
        <source>, resumed after %1</source>
        <translation>, %1 이후 재개</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="73" />
        <source>Fold</source>
        <translation>접기</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="73" />
        <source>Show all %1 characters</source>
        <translation>%1자 모두 보기</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="82" />
        <source>not saved</source>
        <translation>저장되지 않음</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="87" />
        <source>interrupted</source>
        <translation>중단됨</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="89" />
        <source>%1 tokens · first token %2 ms · %3 tok/s · %4 evaluated</source>
        <translation>%1 토큰 · 첫 토큰 %2 ms · %3 토큰/초 · %4 계산</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="95" />
        <source>Copy</source>
        <translation>복사</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="101" />
        <source>Edit</source>
        <translation>고치기</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="111" />
        <source>Edit and resend</source>
        <translation>고쳐서 다시 보내기</translation>
    </message>
</context>
<context>
    <name>PartialSummaries</name>
    <message>
        <location filename="../ui/PartialSummaries.qml" line="16" />
        <source>Hide partial summaries (%1)</source>
        <translation>부분 요약 숨기기 (%1)</translation>
    </message>
    <message>
        <location filename="../ui/PartialSummaries.qml" line="16" />
        <source>Show partial summaries (%1)</source>
        <translation>부분 요약 보기 (%1)</translation>
    </message>
    <message>
        <location filename="../ui/PartialSummaries.qml" line="36" />
        <source>level 0 · chunk %1 · document tokens %2–%3</source>
        <translation>0단계 · 조각 %1 · 문서 토큰 %2–%3</translation>
    </message>
    <message>
        <location filename="../ui/PartialSummaries.qml" line="37" />
        <source>level %1 · merge %2 · of summaries %3–%4</source>
        <translation>%1단계 · 병합 %2 · 요약 %3–%4</translation>
    </message>
</context>
<context>
    <name>SectionHeader</name>
    <message>
        <location filename="../ui/SectionHeader.qml" line="31" />
        <source>What is this? %1</source>
        <translation>이것은 무엇인가요? %1</translation>
    </message>
    <message>
        <location filename="../ui/SectionHeader.qml" line="33" />
        <source>What is this?</source>
        <translation>이것은 무엇인가요?</translation>
    </message>
</context>
<context>
    <name>SettingsDrawer</name>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="29" />
        <location filename="../ui/SettingsDrawer.qml" line="33" />
        <source>Language</source>
        <translation>언어</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="35" />
        <source>System (%1)</source>
        <translation>시스템 (%1)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="40" />
        <source>Conversation</source>
        <translation>대화</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="41" />
        <source>System prompt</source>
        <translation>시스템 프롬프트</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="48" />
        <source>Optional instructions for this conversation</source>
        <translation>이 대화에 줄 지시 (선택)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="51" />
        <source>Sampling</source>
        <translation>샘플링</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="54" />
        <source>temperature</source>
        <translation>온도</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="55" />
        <source>top-k</source>
        <translation>top-k</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="56" />
        <source>top-p</source>
        <translation>top-p</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="57" />
        <source>min-p</source>
        <translation>min-p</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="58" />
        <source>repeat penalty</source>
        <translation>반복 페널티</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="59" />
        <source>seed</source>
        <translation>시드</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="60" />
        <source>max tokens</source>
        <translation>최대 토큰</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="65" />
        <source>Engine</source>
        <translation>엔진</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="68" />
        <source>backend</source>
        <translation>백엔드</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="70" />
        <source>threads (0 = all)</source>
        <translation>스레드 (0 = 전부)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="72" />
        <source>context (0 = trained)</source>
        <translation>컨텍스트 (0 = 학습 길이)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="74" />
        <source>KV type</source>
        <translation>KV 형식</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="76" />
        <source>when the context is full</source>
        <translation>컨텍스트가 찼을 때</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="78" />
        <source>KV snapshots on disk, MiB (0 = no limit)</source>
        <translation>디스크의 KV 스냅숏, MiB (0 = 제한 없음)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="86" />
        <source>Cost before applying: a full context of %1 tokens in %2 takes %3 of KV cache (%4 per token); the weights take %5.</source>
        <translation>적용 전 비용: %2 형식으로 %1 토큰의 컨텍스트를 채우면 KV 캐시 %3 (토큰당 %4), 가중치는 %5입니다.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="96" />
        <source> at %1 tokens</source>
        <translation> (%1 토큰에서)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="101" />
        <source>Apply</source>
        <translation>적용</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="114" />
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <location filename="../ui/Sidebar.qml" line="15" />
        <location filename="../app/chat_controller.cpp" line="747" />
        <source>New chat</source>
        <translation>새 대화</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="21" />
        <source>Search (Ctrl+F)</source>
        <translation>검색 (Ctrl+F)</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="50" />
        <source>Rename conversation</source>
        <translation>대화 이름 바꾸기</translation>
    </message>
</context>
<context>
    <name>SummaryJob</name>
    <message>
        <location filename="../app/documents/summary_job.cpp" line="172" />
        <source>Summary job %1 is not stored.</source>
        <translation>요약 작업 %1이(가) 저장되어 있지 않습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/summary_job.cpp" line="176" />
        <source>No model is loaded.</source>
        <translation>불러온 모델이 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/summary_job.cpp" line="195" />
        <source>The job's document (%1) is not stored.</source>
        <translation>작업의 문서(%1)가 저장되어 있지 않습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/summary_job.cpp" line="205" />
        <source>Summarize “%1”</source>
        <translation>“%1” 요약</translation>
    </message>
</context>
<context>
    <name>SummaryJobView</name>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="36" />
        <source>Summarizing “%1”</source>
        <translation>“%1” 요약 중</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="37" />
        <source>Summary of “%1” written</source>
        <translation>“%1” 요약 완료</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="38" />
        <source>Summary of “%1” was interrupted</source>
        <translation>“%1” 요약이 중단되었습니다</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="39" />
        <source>Summary of “%1” failed</source>
        <translation>“%1” 요약 실패</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="40" />
        <source>Summary of “%1” cancelled</source>
        <translation>“%1” 요약 취소됨</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="44" />
        <source>Cancelling…</source>
        <translation>취소하는 중…</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="44" />
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="50" />
        <source>Resume</source>
        <translation>이어서 하기</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="72" />
        <source>%1 of about %2 summaries</source>
        <translation>약 %2개 중 %1개 요약</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="73" />
        <source>about %1 left</source>
        <translation>약 %1 남음</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="74" />
        <source>%1 elapsed</source>
        <translation>%1 지남</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="75" />
        <source>%1 kept from before</source>
        <translation>이전 것 %1개 유지</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="76" />
        <source>took %1</source>
        <translation>%1 걸림</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="86" />
        <source>Plan: %1</source>
        <translation>계획: %1</translation>
    </message>
</context>
<context>
    <name>SummaryWorker</name>
    <message>
        <location filename="../app/documents/summary_worker.cpp" line="44" />
        <source>Summarizing failed: %1</source>
        <translation>요약에 실패했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/documents/summary_worker.cpp" line="49" />
        <source>Summarizing failed: an unknown exception</source>
        <translation>요약에 실패했습니다: 알 수 없는 예외</translation>
    </message>
</context>
<context>
    <name>Welcome</name>
    <message>
        <location filename="../ui/Welcome.qml" line="18" />
        <source>Welcome to kvchat</source>
        <translation>kvchat에 오신 것을 환영합니다</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="24" />
        <source>kvchat runs a language model on this computer: nothing you type leaves it. While the model answers, the memory panel on the right shows where the memory goes.</source>
        <translation>kvchat은 이 컴퓨터에서 언어 모델을 실행합니다. 입력한 내용은 밖으로 나가지 않습니다. 모델이 답하는 동안 오른쪽 메모리 패널이 메모리가 어디에 쓰이는지 보여 줍니다.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="25" />
        <source>A small demo model is already loaded. It was trained on the King James Bible and continues verses rather than answering questions: type “Genesis 1”, then Shift+Enter, “1 In the beginning” and Enter.</source>
        <translation>작은 데모 모델이 이미 불러와져 있습니다. 킹 제임스 성경으로 학습해 질문에 답하기보다 구절을 이어 씁니다. “Genesis 1”을 입력하고 Shift+Enter, “1 In the beginning”을 입력한 뒤 Enter를 눌러 보세요.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="26" />
        <source>Other models: open a GGUF file with “Open model…” (Ctrl+O) or drop one on the window. GGUF files of Llama, Mistral, Qwen, Gemma and Phi models are published on Hugging Face; Q4_K_M files are a good first choice on a CPU.</source>
        <translation>다른 모델: “모델 열기…”(Ctrl+O)로 GGUF 파일을 열거나 창에 끌어다 놓으세요. Llama, Mistral, Qwen, Gemma, Phi 모델의 GGUF 파일은 Hugging Face에 공개되어 있으며, CPU에서는 Q4_K_M 파일로 시작하기를 권합니다.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="27" />
        <source>The memory panel: the weights (fixed, shared), the KV cache (the keys and values of every token, growing as the conversation lengthens), the formula behind its size, the blocks it grows in, what other KV types would cost, and how many conversations of this length would fit. Each section has a “?” that explains it.</source>
        <translation>메모리 패널: 가중치(크기 고정, 공유), KV 캐시(모든 토큰의 Key와 Value, 대화가 길어질수록 늘어남), 그 크기를 정하는 식, 캐시가 늘어나는 블록, 다른 KV 형식의 비용, 이 길이의 대화가 몇 개 들어가는지를 보여 줍니다. 각 부분의 “?”를 누르면 설명이 나옵니다.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="38" />
        <source>Start</source>
        <translation>시작하기</translation>
    </message>
</context>
<context>
    <name>kvchat::app::ChatController</name>
    <message>
        <location filename="../app/chat_controller.cpp" line="68" />
        <source>Chat template: %1</source>
        <translation>채팅 템플릿: %1</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="188" />
        <source>saved</source>
        <translation>저장됨</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="188" />
        <source>everything in the window is stored again</source>
        <translation>창의 모든 내용이 다시 저장되었습니다</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="196" />
        <source>Saving failed: %1. Nothing is lost: what is not saved stays in the window, marked “not saved”, and is saved with the next change.</source>
        <translation>저장 실패: %1. 잃은 것은 없습니다. 저장되지 않은 내용은 “저장되지 않음” 표시와 함께 창에 남아 있고, 다음 변경 때 저장됩니다.</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="223" />
        <source>%1 message(s) of this conversation are not saved yet (%2). Free disk space and try again: leaving the conversation now would lose them.</source>
        <translation>이 대화의 메시지 %1개가 아직 저장되지 않았습니다 (%2). 디스크 공간을 확보한 뒤 다시 시도하세요. 지금 대화를 떠나면 그 메시지를 잃습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="242" />
        <source>The system prompt was not saved: %1</source>
        <translation>시스템 프롬프트를 저장하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="335" />
        <source>KV state restored from the snapshot (%1): nothing re-evaluated</source>
        <translation>스냅숏에서 KV 상태를 복원했습니다 (%1): 다시 계산한 것 없음</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="337" />
        <source>No usable snapshot (%1): the conversation is re-evaluated with the next message</source>
        <translation>쓸 수 있는 스냅숏이 없습니다 (%1): 다음 메시지와 함께 대화를 다시 계산합니다</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="352" />
        <source>chat</source>
        <translation>채팅</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="433" />
        <source>The conversation was not deleted: %1</source>
        <translation>대화를 삭제하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="438" />
        <source>The conversation is deleted but its KV snapshot %1 could not be removed.</source>
        <translation>대화는 삭제했지만 KV 스냅숏 %1을(를) 지우지 못했습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="465" />
        <source>The model is still loading: your message is kept in the box; send it when it is ready.</source>
        <translation>모델을 아직 불러오는 중입니다. 메시지는 입력란에 그대로 있으니 준비되면 보내세요.</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="469" />
        <source>No model is loaded: your message is kept in the box. Open a GGUF model (“Open model…”, Ctrl+O, or drop one on the window), or pick the demo model under “Recent”, then send it.</source>
        <translation>불러온 모델이 없습니다. 메시지는 입력란에 그대로 있습니다. GGUF 모델을 열거나(“모델 열기…”, Ctrl+O, 또는 창에 끌어다 놓기) “최근”에서 데모 모델을 고른 뒤 보내세요.</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="593" />
        <source>Cannot regenerate now: %1</source>
        <translation>지금은 다시 생성할 수 없습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="607" />
        <source>Cannot edit now: %1</source>
        <translation>지금은 고칠 수 없습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="613" />
        <source>The edit was not saved: %1</source>
        <translation>고친 내용을 저장하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="694" />
        <source>Backend: %1</source>
        <translation>백엔드: %1</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="155" />
        <location filename="../app/chat_controller.cpp" line="387" />
        <source>New chat</source>
        <translation>새 대화</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="33" />
        <source>The database %1 was damaged and could not be read. It was moved aside, nothing deleted, to %2; a fresh database was created.</source>
        <translation>데이터베이스 %1이(가) 손상되어 읽을 수 없었습니다. 지우지 않고 %2(으)로 옮겨 두었으며, 새 데이터베이스를 만들었습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="40" />
        <source>Replies cut short by the last exit could not be marked interrupted.</source>
        <translation>지난 종료로 끊긴 답변을 중단됨으로 표시하지 못했습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="420" />
        <source>The new name was not saved: %1</source>
        <translation>새 이름을 저장하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/chat_controller.cpp" line="428" />
        <source>A summary is being written into this conversation: cancel it first.</source>
        <translation>이 대화에 요약을 쓰는 중입니다. 먼저 취소하세요.</translation>
    </message>
</context>
<context>
    <name>kvchat::app::DocumentController</name>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="104" />
        <location filename="../app/documents/document_controller.cpp" line="120" />
        <source>Documents cannot be stored: %1</source>
        <translation>문서를 저장할 수 없습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="110" />
        <source>“%1” will be loaded when the model is ready.</source>
        <translation>모델이 준비되면 “%1”을(를) 불러옵니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="163" />
        <source>Loading the document was cancelled.</source>
        <translation>문서 불러오기를 취소했습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="272" />
        <location filename="../app/documents/document_controller.cpp" line="300" />
        <source>Counting tokens…</source>
        <translation>토큰 세는 중…</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="272" />
        <source>Load a model to count the tokens.</source>
        <translation>토큰을 세려면 모델을 불러오세요.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="337" />
        <source>Cannot summarize: %1</source>
        <translation>요약할 수 없습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="349" />
        <source>“%1” does not fit the context window whole: summarize it instead.</source>
        <translation>“%1”은(는) 컨텍스트 창에 통째로 들어가지 않습니다. 대신 요약하세요.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="360" />
        <source>The stored text of “%1” cannot be read.</source>
        <translation>저장된 “%1”의 텍스트를 읽을 수 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="422" />
        <source>resuming after %1 summaries</source>
        <translation>요약 %1개 이후부터 재개</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="422" />
        <source>counting chunks</source>
        <translation>조각 세는 중</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="493" />
        <source>The summary is stored with its job but could not be added to the conversation: %1</source>
        <translation>요약은 작업과 함께 저장되었지만 대화에 추가하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="501" />
        <source>cancelled after %1 summaries</source>
        <translation>요약 %1개 이후 취소됨</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="504" />
        <source>Summarizing “%1” failed: %2</source>
        <translation>“%1” 요약 실패: %2</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="538" />
        <source>%1 of about %2 summaries written</source>
        <translation>약 %2개 중 %1개 요약 완료</translation>
    </message>
</context>
</TS>