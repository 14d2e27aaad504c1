<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ko_KR">
<context>
    <name>ChatFormat</name>
    <message>
        <location filename="../app/engine/engine_maps.cpp" line="21"/>
        <source>built-in completion format: the file has no chat template, so the conversation is sent as plain text for the model to continue</source>
        <translation>내장 이어 쓰기 형식: 파일에 채팅 템플릿이 없어 대화를 모델이 이어 쓸 평문으로 보냅니다</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_maps.cpp" line="25"/>
        <source>your chat template for this model</source>
        <translation>이 모델에 지정한 채팅 템플릿</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_maps.cpp" line="26"/>
        <source>the model&apos;s own chat template</source>
        <translation>모델 자체의 채팅 템플릿</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_maps.cpp" line="36"/>
        <source>built-in %1 format</source>
        <translation>내장 %1 형식</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_maps.cpp" line="37"/>
        <source>built-in %1 format (your override for this model)</source>
        <translation>내장 %1 형식 (이 모델에 직접 지정)</translation>
    </message>
</context>
<context>
    <name>ChatTemplateSettings</name>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="20"/>
        <source>The model file&apos;s template</source>
        <translation>모델 파일의 템플릿</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="20"/>
        <source>Built-in: </source>
        <translation>내장: </translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="20"/>
        <source>Custom (Jinja)</source>
        <translation>사용자 지정 (Jinja)</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="43"/>
        <location filename="../ui/ChatTemplateSettings.qml" line="68"/>
        <location filename="../ui/ChatTemplateSettings.qml" line="91"/>
        <source>Chat template</source>
        <translation>채팅 템플릿</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="51"/>
        <source>In use: </source>
        <translation>사용 중: </translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="51"/>
        <source>Load a model to see its chat template.</source>
        <translation>모델을 불러오면 채팅 템플릿을 볼 수 있습니다.</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="63"/>
        <source>Kept for this model file.</source>
        <translation>이 모델 파일에 대해 유지됩니다.</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="64"/>
        <source>For the loaded model, %1 (kept for that file).</source>
        <translation>불러온 모델에는 %1 (그 파일에 대해 유지됨).</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="82"/>
        <source>Write the template, then “Use this template”. A running local server restarts with it.</source>
        <translation>템플릿을 작성한 뒤 “이 템플릿 사용”을 누르세요. 실행 중인 로컬 서버는 이 템플릿으로 다시 시작합니다.</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="83"/>
        <source>A choice applies at once. A running local server restarts with it.</source>
        <translation>고르면 바로 적용됩니다. 실행 중인 로컬 서버는 새 템플릿으로 다시 시작합니다.</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="99"/>
        <source>(the file has no chat template)</source>
        <translation>(파일에 채팅 템플릿이 없습니다)</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="99"/>
        <source>{% for m in messages %}…{% endfor %}</source>
        <translation>{% for m in messages %}…{% endfor %}</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="107"/>
        <source>Use this template</source>
        <translation>이 템플릿 사용</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="120"/>
        <source>Thinking (the template&apos;s enable_thinking)</source>
        <translation>생각하기 (템플릿의 enable_thinking)</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="126"/>
        <source>Thinking</source>
        <translation>생각</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="127"/>
        <source>Template&apos;s default</source>
        <translation>템플릿 기본값</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="127"/>
        <source>On</source>
        <translation>켜기</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="127"/>
        <source>Off</source>
        <translation>끄기</translation>
    </message>
    <message>
        <location filename="../ui/ChatTemplateSettings.qml" line="131"/>
        <source>Off asks the template for an answer without reasoning (Qwen 3 writes an empty &lt;think&gt;&lt;/think&gt; into the prompt)</source>
        <translation>끄면 템플릿에 추론 없이 답하도록 요청합니다 (Qwen 3은 프롬프트에 빈 &lt;think&gt;&lt;/think&gt;를 씁니다)</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <location filename="../ui/ChatView.qml" line="79"/>
        <source>Messages</source>
        <translation>메시지</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="150"/>
        <source>Opening the conversation: its messages are long</source>
        <translation>대화를 여는 중: 메시지가 깁니다</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="190"/>
        <source>Long text pasted (%1 characters). Treat it as a document, with its cost shown before anything is sent?</source>
        <translation>긴 텍스트를 붙여 넣었습니다 (%1자). 보내기 전에 비용을 보여 주는 문서로 다룰까요?</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="193"/>
        <source>Treat as document</source>
        <translation>문서로 다루기</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="197"/>
        <source>Keep as message</source>
        <translation>메시지로 두기</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="222"/>
        <source>Attach document</source>
        <translation>문서 첨부</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="223"/>
        <source>Text, Markdown or PDF (Ctrl+D), or drop a file on the window</source>
        <translation>텍스트, Markdown, PDF (Ctrl+D), 또는 창에 파일을 끌어다 놓기</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="243"/>
        <source>Message</source>
        <translation>메시지</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="244"/>
        <source>Enter sends, Shift+Enter starts a new line, Tab leaves the box</source>
        <translation>Enter 보내기, Shift+Enter 줄바꿈, Tab 입력란 벗어나기</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="246"/>
        <source>Start a verse, e.g. “Genesis 1⏎1 In the beginning” — Enter sends, Shift+Enter newline</source>
        <translation>구절을 시작해 보세요. 예: “Genesis 1⏎1 In the beginning” — Enter 보내기, Shift+Enter 줄바꿈</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="247"/>
        <source>Message — Enter sends, Shift+Enter newline</source>
        <translation>메시지 — Enter 보내기, Shift+Enter 줄바꿈</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="285"/>
        <source>Regenerate the last reply</source>
        <translation>마지막 답변 다시 생성</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="293"/>
        <source>Stop</source>
        <translation>중지</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="293"/>
        <location filename="../app/testing/chat_state_probe.cpp" line="141"/>
        <source>Send</source>
        <translation>보내기</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="294"/>
        <source>Stop the reply (Esc)</source>
        <translation>답변 중지 (Esc)</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="294"/>
        <source>Send (Enter)</source>
        <translation>보내기 (Enter)</translation>
    </message>
    <message>
        <location filename="../ui/ChatView.qml" line="284"/>
        <source>Regenerate</source>
        <translation>다시 생성</translation>
    </message>
</context>
<context>
    <name>ContextBlocks</name>
    <message>
        <location filename="../ui/memory/ContextBlocks.qml" line="21"/>
        <source>Context</source>
        <translation>컨텍스트</translation>
    </message>
    <message>
        <location filename="../ui/memory/ContextBlocks.qml" line="22"/>
        <source>The context is how many tokens the model can see at once, your messages and its replies together. When it is full, the policy chosen in Settings decides what happens: stop, drop the oldest turns, shift the window past the oldest half, or keep the start and the latest tokens (attention sinks: the oldest after the start leave a block at a time).</source>
        <translation>컨텍스트는 모델이 한 번에 볼 수 있는 토큰 수로, 사용자의 메시지와 모델의 답변을 합한 것입니다. 가득 차면 설정에서 고른 정책이 할 일을 정합니다: 멈추기, 가장 오래된 턴 버리기, 가장 오래된 절반을 지나도록 창 이동하기, 또는 시작 부분과 최신 토큰 유지하기(어텐션 싱크: 시작 뒤의 가장 오래된 토큰이 블록 단위로 빠집니다).</translation>
    </message>
    <message>
        <location filename="../ui/memory/ContextBlocks.qml" line="28"/>
        <source>Context: %1</source>
        <translation>컨텍스트: %1</translation>
    </message>
    <message>
        <location filename="../ui/memory/ContextBlocks.qml" line="59"/>
        <source>Blocks: %1 used · %2 free in the pool</source>
        <translation>블록: 사용 %1 · 풀의 여유 %2</translation>
    </message>
    <message>
        <location filename="../ui/memory/ContextBlocks.qml" line="60"/>
        <source>The KV cache is not reserved for the whole context up front: it grows in small blocks of a fixed number of tokens as the conversation lengthens (paging). Only the last block can be partly empty, so almost no memory is lost to fragmentation, and blocks freed by a shorter conversation return to the pool for the next one.</source>
        <translation>KV 캐시는 컨텍스트 전체만큼 미리 잡아 두지 않고, 대화가 길어짐에 따라 정해진 토큰 수의 작은 블록 단위로 늘어납니다(페이징). 마지막 블록만 일부 비어 있을 수 있어 단편화로 버려지는 메모리가 거의 없고, 짧아진 대화가 내놓은 블록은 풀로 돌아가 다음 대화가 씁니다.</translation>
    </message>
</context>
<context>
    <name>ContextMeterBar</name>
    <message>
        <location filename="../ui/ContextMeterBar.qml" line="21"/>
        <source>when full: shift out the oldest half</source>
        <translation>가득 차면: 오래된 절반을 밀어냄</translation>
    </message>
    <message>
        <location filename="../ui/ContextMeterBar.qml" line="22"/>
        <source>when full: keep the start and the latest</source>
        <translation>가득 차면: 시작 부분과 최신 내용 유지</translation>
    </message>
    <message>
        <location filename="../ui/ContextMeterBar.qml" line="23"/>
        <source>when full: stop</source>
        <translation>가득 차면: 멈춤</translation>
    </message>
    <message>
        <location filename="../ui/ContextMeterBar.qml" line="24"/>
        <source>when full: drop the oldest turns</source>
        <translation>가득 차면: 가장 오래된 턴 삭제</translation>
    </message>
    <message>
        <location filename="../ui/ContextMeterBar.qml" line="29"/>
        <source>Context meter</source>
        <translation>컨텍스트 미터</translation>
    </message>
    <message>
        <location filename="../ui/ContextMeterBar.qml" line="67"/>
        <source>%1 / %2 tokens</source>
        <translation>%1 / %2 토큰</translation>
    </message>
    <message>
        <location filename="../ui/ContextMeterBar.qml" line="68"/>
        <source>this message %1</source>
        <translation>이 메시지 %1</translation>
    </message>
</context>
<context>
    <name>DocumentCard</name>
    <message>
        <location filename="../ui/DocumentCard.qml" line="35"/>
        <source>Loading document: %1 %2%</source>
        <translation>문서 불러오는 중: %1 %2%</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="37"/>
        <location filename="../ui/DocumentCard.qml" line="138"/>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="37"/>
        <source>Cancel loading the document</source>
        <translation>문서 불러오기 취소</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="49"/>
        <source>Document “%1”</source>
        <translation>문서 “%1”</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="56"/>
        <source>already stored (same content)</source>
        <translation>이미 저장됨 (같은 내용)</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="60"/>
        <source>Close the document preview</source>
        <translation>문서 미리 보기 닫기</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="63"/>
        <source>%1 · %2 · %3</source>
        <translation>%1 · %2 · %3</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="72"/>
        <source>Encoding: %1</source>
        <translation>인코딩: %1</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="78"/>
        <source>tokens</source>
        <translation>토큰</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="81"/>
        <source>%1 (this model&apos;s tokenizer)</source>
        <translation>%1 (이 모델의 토크나이저 기준)</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="81"/>
        <source>not counted yet</source>
        <translation>아직 세지 않음</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="83"/>
        <source>KV cache</source>
        <translation>KV 캐시</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="85"/>
        <source>%1 tokens × %2 per token (%3) = %4</source>
        <translation>%1 토큰 × 토큰당 %2 (%3) = %4</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="89"/>
        <source>context</source>
        <translation>컨텍스트</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="93"/>
        <source>needs %1 of %2 tokens with this conversation: %3</source>
        <translation>이 대화와 함께 %2 토큰 중 %1 토큰 필요: %3</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="95"/>
        <location filename="../ui/DocumentCard.qml" line="103"/>
        <source>fits</source>
        <translation>들어감</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="95"/>
        <location filename="../ui/DocumentCard.qml" line="103"/>
        <source>does not fit</source>
        <translation>들어가지 않음</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="98"/>
        <source>memory</source>
        <translation>메모리</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="101"/>
        <source>%1 free (%2): %3</source>
        <translation>%1 여유 (%2): %3</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="102"/>
        <source>device</source>
        <translation>장치</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="102"/>
        <source>RAM</source>
        <translation>RAM</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="105"/>
        <source>plan</source>
        <translation>계획</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="112"/>
        <source> (no time estimate before a reply has measured the speed)</source>
        <translation> (답변으로 속도를 재기 전에는 시간을 추정하지 않습니다)</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="131"/>
        <source>Summarize anyway</source>
        <translation>그래도 요약</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="133"/>
        <source>Or Ctrl+Shift+S again</source>
        <translation>또는 Ctrl+Shift+S를 한 번 더</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="139"/>
        <source>Do not summarize</source>
        <translation>요약하지 않기</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="154"/>
        <source>Once the reply is written.</source>
        <translation>답변이 끝난 뒤에 할 수 있습니다.</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="160"/>
        <source>Send whole</source>
        <translation>통째로 보내기</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="153"/>
        <source>The text becomes your message; its KV stays in the cache for follow-up questions (Ctrl+Shift+W).</source>
        <translation>텍스트가 메시지가 되고, 그 KV는 이어지는 질문을 위해 캐시에 남습니다 (Ctrl+Shift+W).</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="155"/>
        <source>Only when it fits the context window and the free memory.</source>
        <translation>컨텍스트 창과 여유 메모리에 들어갈 때만 가능합니다.</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="170"/>
        <source>Summarize</source>
        <translation>요약</translation>
    </message>
    <message>
        <location filename="../ui/DocumentCard.qml" line="175"/>
        <source>Chunk, summarize, merge (Ctrl+Shift+S). Cancel at any point; it resumes where it stopped.</source>
        <translation>나누고, 요약하고, 합칩니다 (Ctrl+Shift+S). 언제든 취소할 수 있고, 멈춘 곳에서 다시 이어집니다.</translation>
    </message>
</context>
<context>
    <name>DocumentLoader</name>
    <message>
        <location filename="../app/documents/document_loader.cpp" line="152"/>
        <source>Cannot read “%1” as a PDF: %2.</source>
        <translation>“%1”을(를) PDF로 읽을 수 없습니다: %2.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_loader.cpp" line="59"/>
        <location filename="../app/documents/document_loader.cpp" line="67"/>
        <location filename="../app/documents/document_loader.cpp" line="81"/>
        <source>Cannot open “%1”: %2.</source>
        <translation>“%1”을(를) 열 수 없습니다: %2.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_loader.cpp" line="233"/>
        <source>Pasted text</source>
        <translation>붙여 넣은 텍스트</translation>
    </message>
    <message>
        <location filename="../app/documents/document_loader.cpp" line="338"/>
        <source>The stored document %1 cannot be read back.</source>
        <translation>저장된 문서 %1을(를) 다시 읽을 수 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_loader.cpp" line="454"/>
        <source>Document %1 is not stored.</source>
        <translation>문서 %1이(가) 저장되어 있지 않습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_loader.cpp" line="522"/>
        <source>Loading the document failed: %1</source>
        <translation>문서를 불러오지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/documents/document_loader.cpp" line="526"/>
        <source>Loading the document failed.</source>
        <translation>문서를 불러오지 못했습니다.</translation>
    </message>
</context>
<context>
    <name>DownloadNames</name>
    <message>
        <location filename="../app/hub/download_http.cpp" line="73"/>
        <source>an empty file name</source>
        <translation>빈 파일 이름</translation>
    </message>
    <message>
        <location filename="../app/hub/download_http.cpp" line="75"/>
        <source>an absolute path or a backslash</source>
        <translation>절대 경로 또는 백슬래시</translation>
    </message>
    <message>
        <location filename="../app/hub/download_http.cpp" line="79"/>
        <source>a path that leaves its directory (&quot;..&quot; or an empty part)</source>
        <translation>디렉터리를 벗어나는 경로 (&quot;..&quot; 또는 빈 부분)</translation>
    </message>
    <message>
        <location filename="../app/hub/download_http.cpp" line="84"/>
        <source>a control character</source>
        <translation>제어 문자</translation>
    </message>
    <message>
        <location filename="../app/hub/download_http.cpp" line="88"/>
        <source>a hidden file name</source>
        <translation>숨김 파일 이름</translation>
    </message>
    <message>
        <location filename="../app/hub/download_http.cpp" line="90"/>
        <source>a file name over 200 bytes</source>
        <translation>200바이트를 넘는 파일 이름</translation>
    </message>
    <message>
        <location filename="../app/hub/download_http.cpp" line="92"/>
        <source>not a .gguf file</source>
        <translation>.gguf 파일이 아님</translation>
    </message>
</context>
<context>
    <name>EngineGauges</name>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="127"/>
        <source>GPU: %1 of %2 layers · on the GPU: weights %3, KV %4 · on the CPU: weights %5, KV %6</source>
        <translation>GPU: 레이어 %2개 중 %1개 · GPU: 가중치 %3, KV %4 · CPU: 가중치 %5, KV %6</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="25"/>
        <source>This conversation&apos;s engine memory</source>
        <translation>이 대화의 엔진 메모리</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="26"/>
        <source>The bar divides the memory this conversation uses. The weights are what the model learned: fixed in size and shared by every conversation. The KV cache is the model&apos;s working notes for this conversation, the keys and values of every token so far: it grows with each token. Reserved but empty KV blocks, and scratch buffers for one step of computation, make up the rest. With a large model the KV cache is a sliver of this bar: the bar below shows it on its own scale.</source>
        <translation>막대는 이 대화가 쓰는 메모리를 나눠 보여 줍니다. 가중치는 모델이 학습한 내용으로, 크기가 정해져 있고 모든 대화가 함께 씁니다. KV 캐시는 이 대화를 위한 모델의 작업 메모로, 지금까지의 모든 토큰의 Key와 Value이며 토큰마다 늘어납니다. 나머지는 예약했지만 아직 빈 KV 블록과, 한 단계 계산에 쓰는 작업 버퍼입니다. 큰 모델에서는 KV 캐시가 이 막대의 아주 작은 조각이라, 아래 막대가 KV 캐시만 따로 척도를 맞춰 보여 줍니다.</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="36"/>
        <source>weights</source>
        <translation>가중치</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="37"/>
        <source>KV used</source>
        <translation>사용 중인 KV</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="38"/>
        <source>KV allocated, empty</source>
        <translation>할당되었지만 빈 KV</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="39"/>
        <source>scratch</source>
        <translation>작업 버퍼</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="70"/>
        <source>KV cache on its own scale</source>
        <translation>KV 캐시 (자체 척도)</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="71"/>
        <source>The same KV cache as in the bar above, drawn against the most it can take: the whole context at this KV type, or the KV budget set in Settings when that is smaller. Orange is used, light orange reserved but still empty.</source>
        <translation>위 막대와 같은 KV 캐시를, 차지할 수 있는 최대 크기에 대비해 그립니다. 최대 크기는 이 KV 형식에서의 전체 컨텍스트이며, 설정의 KV 예산이 더 작으면 그 예산입니다. 주황색은 사용 중, 연한 주황색은 예약되었지만 아직 비어 있는 부분입니다.</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="104"/>
        <source>KV used %1 · allocated %2 · %3 %4 (%5%)</source>
        <translation>KV 사용 %1 · 할당 %2 · %3 %4 (%5%)</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="106"/>
        <source>budget</source>
        <translation>예산</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="106"/>
        <source>whole context</source>
        <translation>전체 컨텍스트</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="114"/>
        <source>%1: weights %2 · KV pool %3 · scratch %4 on the device</source>
        <translation>%1: 장치의 가중치 %2 · KV 풀 %3 · 작업 버퍼 %4</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="137"/>
        <source>VRAM: %2 free of %3 (all processes) · %1 resident in this process</source>
        <translation>VRAM: %3 중 %2 여유 (모든 프로세스) · 이 프로세스가 %1 사용</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="138"/>
        <source>Machine: %1 resident in this process · %2 available of %3</source>
        <translation>컴퓨터: 이 프로세스가 %1 사용 · %3 중 %2 사용 가능</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="152"/>
        <source>Bar: VRAM in use by all processes, %1 of %2 (%3%)</source>
        <translation>막대: 모든 프로세스가 쓰는 VRAM, %2 중 %1 (%3%)</translation>
    </message>
    <message>
        <location filename="../ui/memory/EngineGauges.qml" line="153"/>
        <source>Bar: RAM in use on this machine by all processes, %1 of %2 (%3%)</source>
        <translation>막대: 이 컴퓨터의 모든 프로세스가 쓰는 RAM, %2 중 %1 (%3%)</translation>
    </message>
</context>
<context>
    <name>EngineMaps</name>
    <message>
        <location filename="../app/engine/worker_values.cpp" line="110"/>
        <source>%1: %2 tensors</source>
        <translation>%1: 텐서 %2개</translation>
    </message>
    <message>
        <location filename="../app/engine/worker_values.cpp" line="137"/>
        <source>%1 at %2</source>
        <translation>%2의 %1</translation>
    </message>
</context>
<context>
    <name>EngineWorker</name>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="164"/>
        <location filename="../app/engine/engine_worker.cpp" line="242"/>
        <location filename="../app/engine/engine_worker.cpp" line="268"/>
        <source>No model is loaded.</source>
        <translation>불러온 모델이 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="303"/>
        <source>Stopped: no summary was written.</source>
        <translation>중지됨: 요약을 쓰지 않았습니다.</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="323"/>
        <source>Saving the KV snapshot failed: %1</source>
        <translation>KV 스냅숏을 저장하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="343"/>
        <source>Keeping the KV snapshots within their budget failed: %1</source>
        <translation>KV 스냅숏을 예산 안으로 유지하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="369"/>
        <location filename="../app/memory/memory_state.cpp" line="189"/>
        <source>no snapshot saved</source>
        <translation>저장된 스냅숏 없음</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker_remote.cpp" line="29"/>
        <source>the endpoint&apos;s own chat template</source>
        <translation>엔드포인트 자체의 채팅 템플릿</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker_remote.cpp" line="45"/>
        <source>&apos;%1&apos; is not a remote model&apos;s name.</source>
        <translation>&apos;%1&apos;은(는) 원격 모델 이름이 아닙니다.</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker_remote.cpp" line="67"/>
        <source>%1 no longer serves %2.</source>
        <translation>%1은(는) 더 이상 %2을(를) 제공하지 않습니다.</translation>
    </message>
</context>
<context>
    <name>HubClient</name>
    <message>
        <location filename="../app/hub/hub_client.cpp" line="17"/>
        <source>The Hub&apos;s answer for %1 is not the JSON expected.</source>
        <translation>%1에 대한 Hub의 응답이 예상한 JSON이 아닙니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_client.cpp" line="83"/>
        <source>the search for &quot;%1&quot;</source>
        <translation>&quot;%1&quot; 검색</translation>
    </message>
</context>
<context>
    <name>HubEndpoint</name>
    <message>
        <location filename="../app/hub/hub_endpoint.cpp" line="57"/>
        <source>The Hub address &quot;%1&quot; (%2) is not an http(s) URL.</source>
        <translation>Hub 주소 &quot;%1&quot; (%2)은(는) http(s) URL이 아닙니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_endpoint.cpp" line="63"/>
        <source>The Hub address (%1) must not contain a user name, a password, a query or a fragment.</source>
        <translation>Hub 주소(%1)에는 사용자 이름, 비밀번호, 쿼리, 프래그먼트가 들어갈 수 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_endpoint.cpp" line="71"/>
        <source>The Hub address &quot;%1&quot; (%2) uses plain http: only https is allowed, except for this computer (localhost).</source>
        <translation>Hub 주소 &quot;%1&quot; (%2)은(는) 일반 http를 사용합니다. 이 컴퓨터(localhost)를 제외하면 https만 허용됩니다.</translation>
    </message>
</context>
<context>
    <name>HubNames</name>
    <message>
        <location filename="../app/hub/names.cpp" line="25"/>
        <source>The repository name is empty.</source>
        <translation>저장소 이름이 비어 있습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="27"/>
        <source>The repository name is too long.</source>
        <translation>저장소 이름이 너무 깁니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="30"/>
        <location filename="../app/hub/names.cpp" line="35"/>
        <source>The repository name must be owner/name, with exactly one &apos;/&apos;.</source>
        <translation>저장소 이름은 &apos;/&apos;가 정확히 하나인 owner/name 형식이어야 합니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="39"/>
        <source>The repository name may only contain letters, digits, &apos;-&apos;, &apos;_&apos; and &apos;.&apos;.</source>
        <translation>저장소 이름에는 문자, 숫자, &apos;-&apos;, &apos;_&apos;, &apos;.&apos;만 쓸 수 있습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="44"/>
        <source>Each part of the repository name must start with a letter or a digit.</source>
        <translation>저장소 이름의 각 부분은 문자나 숫자로 시작해야 합니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="48"/>
        <source>The repository name must not contain &apos;..&apos; or &apos;--&apos;.</source>
        <translation>저장소 이름에 &apos;..&apos; 또는 &apos;--&apos;가 들어갈 수 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="56"/>
        <source>The file name is empty.</source>
        <translation>파일 이름이 비어 있습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="58"/>
        <source>The file name is too long.</source>
        <translation>파일 이름이 너무 깁니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="62"/>
        <source>The file name contains control characters.</source>
        <translation>파일 이름에 제어 문자가 들어 있습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="65"/>
        <source>The file name must not contain &apos;\&apos; or &apos;:&apos;.</source>
        <translation>파일 이름에 &apos;\&apos; 또는 &apos;:&apos;가 들어갈 수 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="68"/>
        <source>The file name must not be an absolute path.</source>
        <translation>파일 이름은 절대 경로일 수 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="71"/>
        <source>The file name must not contain empty, &apos;.&apos; or &apos;..&apos; parts.</source>
        <translation>파일 이름에 빈 부분, &apos;.&apos; 또는 &apos;..&apos; 부분이 들어갈 수 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="75"/>
        <source>A part of the file name is too long.</source>
        <translation>파일 이름의 한 부분이 너무 깁니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="81"/>
        <source>The file size is negative.</source>
        <translation>파일 크기가 음수입니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="83"/>
        <source>The file size is absurdly large.</source>
        <translation>파일 크기가 터무니없이 큽니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="89"/>
        <source>The SHA-256 must be 64 hexadecimal digits.</source>
        <translation>SHA-256은 16진수 64자리여야 합니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/names.cpp" line="93"/>
        <source>The SHA-256 must be 64 lowercase hexadecimal digits.</source>
        <translation>SHA-256은 소문자 16진수 64자리여야 합니다.</translation>
    </message>
</context>
<context>
    <name>HubRequest</name>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="127"/>
        <source>The Hub refused the access token for %1 (HTTP 401). Check the token in Settings.</source>
        <translation>Hub가 %1에 대한 액세스 토큰을 거부했습니다 (HTTP 401). 설정에서 토큰을 확인하세요.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="132"/>
        <source>%1 is gated or private (HTTP 401): accept its terms on the Hub and set an access token in Settings.</source>
        <translation>%1은(는) 접근이 제한되었거나 비공개입니다 (HTTP 401). Hub에서 약관에 동의하고 설정에서 액세스 토큰을 지정하세요.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="139"/>
        <source>Access to %1 was denied (HTTP 403): accept the repository&apos;s terms on the Hub with the account of your access token.</source>
        <translation>%1에 대한 접근이 거부되었습니다 (HTTP 403). 액세스 토큰의 계정으로 Hub에서 저장소 약관에 동의하세요.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="146"/>
        <source>%1 was not found on the Hub (HTTP 404).</source>
        <translation>Hub에서 %1을(를) 찾을 수 없습니다 (HTTP 404).</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="153"/>
        <source>The Hub is limiting requests (HTTP 429): try again in %1 seconds.</source>
        <translation>Hub가 요청을 제한하고 있습니다 (HTTP 429). %1초 후에 다시 시도하세요.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="156"/>
        <source>The Hub is limiting requests (HTTP 429): try again later.</source>
        <translation>Hub가 요청을 제한하고 있습니다 (HTTP 429). 나중에 다시 시도하세요.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="160"/>
        <source>The Hub had a server error (HTTP %1) for %2: try again later.</source>
        <translation>%2에 대해 Hub에서 서버 오류가 발생했습니다 (HTTP %1). 나중에 다시 시도하세요.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="166"/>
        <source>The Hub answered HTTP %1 for %2.</source>
        <translation>Hub가 %2에 대해 HTTP %1(으)로 응답했습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="77"/>
        <location filename="../app/hub/hub_request.cpp" line="220"/>
        <source>Cancelled.</source>
        <translation>취소되었습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="228"/>
        <source>kvchat does not fetch %1: only https, or plain http to this computer.</source>
        <translation>kvchat은 %1을(를) 가져오지 않습니다. https 또는 이 컴퓨터로의 일반 http만 허용됩니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="73"/>
        <location filename="../app/hub/hub_request.cpp" line="308"/>
        <location filename="../app/hub/hub_request.cpp" line="339"/>
        <source>The Hub did not answer in time (%1).</source>
        <translation>Hub가 제때 응답하지 않았습니다 (%1).</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="34"/>
        <source>The Hub&apos;s answer for %1 is larger than the %2 (%3 bytes) kvchat reads of an answer: it stopped reading.</source>
        <translation>%1에 대한 Hub의 응답이 kvchat이 응답에서 읽는 한도인 %2(%3바이트)보다 커서 읽기를 멈췄습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="42"/>
        <source>(It announced %1 bytes.)</source>
        <translation>(%1바이트라고 알렸습니다.)</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="352"/>
        <source>Too many redirects for %1.</source>
        <translation>%1의 리디렉션이 너무 많습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="65"/>
        <source>Cannot reach the Hub at %1 (%2): you may be offline. Local models keep working.</source>
        <translation>%1의 Hub에 연결할 수 없습니다 (%2). 오프라인 상태일 수 있습니다. 로컬 모델은 계속 작동합니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/hub_request.cpp" line="82"/>
        <source>The connection to %1 broke off (%2).</source>
        <translation>%1과(와)의 연결이 끊어졌습니다 (%2).</translation>
    </message>
</context>
<context>
    <name>KvCacheFigures</name>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="19"/>
        <source>KV cache</source>
        <translation>KV 캐시</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="20"/>
        <source>To write each new token the model looks back at every earlier token through its key and value vectors. Keeping them (the KV cache) instead of computing them again turns work that grows with the square of the length into a lookup, at a price in memory that grows with every token: 2 (K and V) × layers × tokens × KV heads × head size × bytes per value. The line below is this model&apos;s formula with its numbers.</source>
        <translation>모델은 새 토큰을 하나 만들 때마다 앞선 모든 토큰을 그 Key와 Value 벡터로 다시 살펴봅니다. 이를 다시 계산하지 않고 보관해 두면(KV 캐시) 길이의 제곱으로 늘어나는 계산이 조회로 바뀌는 대신, 토큰마다 늘어나는 메모리를 치릅니다: 2 (K와 V) × 레이어 × 토큰 × KV 헤드 × 헤드 크기 × 값당 바이트. 아래 줄은 이 모델의 숫자를 넣은 식입니다.</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="28"/>
        <source>2 × %1 layers × %2 tokens × %3 KV heads × %4 values per head × %5 bytes (%6)
= %7 bytes (%8)</source>
        <translation>2 × 레이어 %1 × 토큰 %2 × KV 헤드 %3 × 헤드당 값 %4 × %5 바이트 (%6)
= %7 바이트 (%8)</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="41"/>
        <source>%1 of %2 layers use a %3-token window: %4 freed by the window; without it the KV would be %5</source>
        <translation>레이어 %2개 중 %1개가 %3 토큰 창을 사용: 창 덕분에 %4 절약, 창이 없다면 KV는 %5</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="54"/>
        <source>%1 of this conversation&apos;s KV is shared with another conversation (%2 tokens reused, not evaluated); %3 shared in all</source>
        <translation>이 대화의 KV 중 %1을(를) 다른 대화와 공유 (토큰 %2개를 다시 계산하지 않고 재사용), 전체 공유량 %3</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="66"/>
        <source>KV used</source>
        <translation>사용 중인 KV</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="67"/>
        <source>KV allocated</source>
        <translation>할당된 KV</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="67"/>
        <source>%1  (%2 blocks of %3 tokens)</source>
        <translation>%1  (%3 토큰짜리 블록 %2개)</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="68"/>
        <source>reserved, empty</source>
        <translation>예약됨, 비어 있음</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="69"/>
        <source>per token</source>
        <translation>토큰당</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="70"/>
        <source>per layer</source>
        <translation>레이어당</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="70"/>
        <source> used in each of %1 layers</source>
        <translation> (레이어 %1개 각각에서 사용)</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="71"/>
        <source>peak</source>
        <translation>최고치</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="71"/>
        <source> allocated</source>
        <translation> 할당</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvCacheFigures.qml" line="87"/>
        <source>Document “%1”: %2 tokens × %3 = %4, %5% of the KV used (%6)</source>
        <translation>문서 “%1”: %2 토큰 × %3 = %4, 사용 중인 KV의 %5% (%6)</translation>
    </message>
</context>
<context>
    <name>KvQualityProbe</name>
    <message>
        <location filename="../app/engine/kv_quality_probe.cpp" line="60"/>
        <source>Measuring the KV types failed: %1</source>
        <translation>KV 형식 측정에 실패했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/engine/kv_quality_probe.cpp" line="63"/>
        <source>Measuring the KV types failed: an unknown exception</source>
        <translation>KV 형식 측정에 실패했습니다: 알 수 없는 예외</translation>
    </message>
</context>
<context>
    <name>KvTimeline</name>
    <message>
        <location filename="../ui/memory/KvTimeline.qml" line="19"/>
        <source>KV memory over this conversation</source>
        <translation>이 대화 동안의 KV 메모리</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTimeline.qml" line="20"/>
        <source>Each point is the KV cache after a token: the bytes used (orange) and reserved (light orange), against the number of tokens in the context. A dashed line marks where a reply began. A conversation&apos;s timeline is its own: it starts empty in a new chat and comes back when you return to a conversation (it is not kept after the app closes).</source>
        <translation>각 점은 토큰 하나가 지난 뒤의 KV 캐시를 컨텍스트 안의 토큰 수에 대해 나타냅니다: 사용한 바이트(주황색)와 예약한 바이트(연한 주황색). 점선은 답변이 시작된 곳을 표시합니다. 타임라인은 대화마다 따로 있습니다. 새 대화에서는 비어 있게 시작하고, 대화로 돌아오면 다시 나타납니다 (앱을 닫으면 유지되지 않습니다).</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTimeline.qml" line="31"/>
        <source>KV memory over this conversation: no tokens yet</source>
        <translation>이 대화 동안의 KV 메모리: 아직 토큰 없음</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTimeline.qml" line="32"/>
        <source>KV memory over this conversation: %1 used at %2 tokens</source>
        <translation>이 대화 동안의 KV 메모리: 토큰 %2개에서 %1 사용</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTimeline.qml" line="80"/>
        <source>KV bytes</source>
        <translation>KV 바이트</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTimeline.qml" line="82"/>
        <source>→ tokens in context</source>
        <translation>→ 컨텍스트 안의 토큰</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTimeline.qml" line="85"/>
        <source>No tokens yet in this conversation</source>
        <translation>이 대화에는 아직 토큰이 없습니다</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTimeline.qml" line="121"/>
        <source>orange: used · light orange: reserved · dashed: a reply began (%1 so far)</source>
        <translation>주황색: 사용 · 연한 주황색: 예약 · 점선: 답변 시작 (지금까지 %1)</translation>
    </message>
</context>
<context>
    <name>KvTypeCosts</name>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="21"/>
        <source>What each KV type would cost</source>
        <translation>KV 형식별 비용</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="22"/>
        <source>Keys and values can be stored with fewer bits: q8_0 takes about half the memory of f16, q4_0 about a quarter, so a longer context or more conversations fit. The price is accuracy: the quality column shows how far the next-token probabilities move (KL divergence) and how often the most likely token stays the same. The r types (q8_0r, q4_0r) rotate each head before quantizing it (a Walsh–Hadamard transform with fixed random signs), which spreads a few large values over the whole head: same memory, fewer bad positions. A pair such as q8_0/q4_0r types keys and values apart (K/V): keys carry most of the loss, so finer keys with 4-bit values keep most of the quality.</source>
        <translation>Key와 Value를 더 적은 비트로 저장할 수 있습니다: q8_0은 f16의 약 절반, q4_0은 약 4분의 1의 메모리를 쓰므로 더 긴 컨텍스트나 더 많은 대화가 들어갑니다. 대가는 정확도입니다: 품질 열은 다음 토큰 확률이 얼마나 움직이는지(KL 발산)와 가장 가능성 높은 토큰이 얼마나 자주 그대로인지를 보여 줍니다. r 형식(q8_0r, q4_0r)은 양자화하기 전에 각 헤드를 회전시키므로(고정된 무작위 부호를 곱한 월시–아다마르 변환) 몇 개의 큰 값이 헤드 전체로 퍼집니다: 메모리는 같고 나쁜 위치는 줄어듭니다. q8_0/q4_0r 같은 쌍은 Key와 Value의 형식을 따로 정합니다(K/V): 손실은 대부분 Key에서 생기므로, Key를 더 정밀하게 두고 Value를 4비트로 두면 품질 대부분이 유지됩니다.</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="29"/>
        <source>type</source>
        <translation>형식</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="30"/>
        <source>bytes/token</source>
        <translation>바이트/토큰</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="31"/>
        <source>max context</source>
        <translation>최대 컨텍스트</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="33"/>
        <source>quality*</source>
        <translation>품질*</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="33"/>
        <source>quality* (demo model&apos;s)</source>
        <translation>품질* (데모 모델 기준)</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="46"/>
        <source>not for this model</source>
        <translation>이 모델에는 맞지 않음</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="48"/>
        <source>KL %1, %2%</source>
        <translation>KL %1, %2%</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="51"/>
        <source>KL 4e-8, 100%</source>
        <translation>KL 4e-8, 100%</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="51"/>
        <source>baseline</source>
        <translation>기준</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="52"/>
        <source>KL 1.9e-5, 99.75%</source>
        <translation>KL 1.9e-5, 99.75%</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="53"/>
        <source>KL 6.0e-3, 95.0%</source>
        <translation>KL 6.0e-3, 95.0%</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="54"/>
        <source>KL 2.1e-5, 99.80%</source>
        <translation>KL 2.1e-5, 99.80%</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="55"/>
        <source>KL 4.3e-3, 95.3%</source>
        <translation>KL 4.3e-3, 95.3%</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="56"/>
        <source>KL 5.9e-6, 99.85%</source>
        <translation>KL 5.9e-6, 99.85%</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="57"/>
        <source>KL 1.6e-3, 97.1%</source>
        <translation>KL 1.6e-3, 97.1%</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="58"/>
        <source>KL 1.3e-3, 97.2%</source>
        <translation>KL 1.3e-3, 97.2%</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="69"/>
        <source> tokens</source>
        <translation> 토큰</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="90"/>
        <source>max context: what fits in the available RAM, at most the trained context. </source>
        <translation>최대 컨텍스트: 사용 가능한 RAM에 들어가는 길이, 학습된 컨텍스트 이하. </translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="92"/>
        <source>*Measured on this model (%1 tokens of a built-in text) against f16 KV: mean KL divergence, top-1 agreement.</source>
        <translation>*이 모델에서 내장 텍스트 %1 토큰으로 f16 KV와 비교해 측정: 평균 KL 발산, top-1 일치율.</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="93"/>
        <source>*Measured on the demo model against f16 KV: mean KL divergence, top-1 agreement (docs/KV_CACHE.md).</source>
        <translation>*데모 모델에서 f16 KV와 비교해 측정: 평균 KL 발산, top-1 일치율 (docs/KV_CACHE.md).</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="94"/>
        <source> Not yet measured on the loaded model: its own figures replace these when they are.</source>
        <translation> 불러온 모델에서는 아직 측정하지 않았습니다. 측정되면 그 값으로 바뀝니다.</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="99"/>
        <source>How many conversations fit</source>
        <translation>몇 개의 대화가 들어가는가</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="100"/>
        <source>Every conversation needs a KV cache of its own while the weights are shared. So the memory one conversation takes at this length decides how many can be held side by side: the same arithmetic limits how many people a server can answer at once, and why shorter contexts or smaller KV types let more fit.</source>
        <translation>가중치는 함께 쓰지만 대화마다 자기 KV 캐시가 필요합니다. 그래서 이 길이에서 대화 하나가 차지하는 메모리가 동시에 몇 개를 둘 수 있는지를 정합니다. 서버가 한 번에 몇 명에게 답할 수 있는지도 같은 계산으로 정해지며, 컨텍스트를 줄이거나 더 작은 KV 형식을 쓰면 더 많이 들어갑니다.</translation>
    </message>
    <message>
        <location filename="../ui/memory/KvTypeCosts.qml" line="109"/>
        <source>Conversations of this length that would fit in the available memory: %1</source>
        <translation>사용 가능한 메모리에 들어가는 이 길이의 대화 수: %1</translation>
    </message>
</context>
<context>
    <name>LocalServerSettings</name>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="25"/>
        <source>Local server</source>
        <translation>로컬 서버</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="32"/>
        <location filename="../ui/LocalServerSettings.qml" line="39"/>
        <source>Serve the loaded model to other programs (OpenAI API)</source>
        <translation>불러온 모델을 다른 프로그램에 제공 (OpenAI API)</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="45"/>
        <source>address</source>
        <translation>주소</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="47"/>
        <source>Server address</source>
        <translation>서버 주소</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="48"/>
        <source>port</source>
        <translation>포트</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="51"/>
        <source>Server port</source>
        <translation>서버 포트</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="52"/>
        <source>sessions at once</source>
        <translation>동시 세션 수</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="54"/>
        <source>Sessions at once</source>
        <translation>동시 세션 수</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="55"/>
        <location filename="../ui/LocalServerSettings.qml" line="59"/>
        <source>API key</source>
        <translation>API 키</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="59"/>
        <source>none</source>
        <translation>없음</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="60"/>
        <source>New</source>
        <translation>새로 만들기</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="61"/>
        <source>A new random key</source>
        <translation>새 임의 키</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="70"/>
        <source>⚠ Other machines on the network can reach this address. Set an API key.</source>
        <translation>⚠ 네트워크의 다른 컴퓨터가 이 주소에 접속할 수 있습니다. API 키를 설정하세요.</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="79"/>
        <source>Serve without a key anyway: anyone on the network can use the model and read what it is asked</source>
        <translation>키 없이 그래도 제공: 네트워크의 누구나 모델을 사용하고 질문 내용을 읽을 수 있습니다</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="90"/>
        <source>Serving %1 at %2%3</source>
        <translation>%1을(를) %2에서 제공 중%3</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="91"/>
        <source> (key required)</source>
        <translation> (키 필요)</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="93"/>
        <source>Off.</source>
        <translation>꺼짐.</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="107"/>
        <source>Copy URL</source>
        <translation>URL 복사</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="108"/>
        <source>Copy key</source>
        <translation>키 복사</translation>
    </message>
    <message>
        <location filename="../ui/LocalServerSettings.qml" line="110"/>
        <source>Restart</source>
        <translation>다시 시작</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <location filename="../ui/Main.qml" line="132"/>
        <source>Open a GGUF model</source>
        <translation>GGUF 모델 열기</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="133"/>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 모델 (*.gguf)</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="133"/>
        <location filename="../ui/Main.qml" line="140"/>
        <source>All files (*)</source>
        <translation>모든 파일 (*)</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="139"/>
        <source>Attach a document</source>
        <translation>문서 첨부</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="140"/>
        <source>Documents (*.txt *.md *.markdown *.pdf)</source>
        <translation>문서 (*.txt *.md *.markdown *.pdf)</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="175"/>
        <source>Model</source>
        <translation>모델</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="182"/>
        <source>file</source>
        <translation>파일</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="183"/>
        <source>architecture</source>
        <translation>아키텍처</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="183"/>
        <source>, tokenizer </source>
        <translation>, 토크나이저 </translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="184"/>
        <source>chat format</source>
        <translation>채팅 형식</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="185"/>
        <source>parameters</source>
        <translation>매개변수</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="186"/>
        <source>shape</source>
        <translation>구조</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="186"/>
        <source>%1 layers, dim %2, %3 heads / %4 KV heads × %5, FFN %6, vocab %7</source>
        <translation>레이어 %1개, 차원 %2, 헤드 %3개 / KV 헤드 %4개 × %5, FFN %6, 어휘 %7</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="189"/>
        <source>details</source>
        <translation>세부 사항</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="189"/>
        <source>RoPE %1 (scaling %2), FFN %3</source>
        <translation>RoPE %1 (스케일링 %2), FFN %3</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="190"/>
        <source>, score soft-cap %1</source>
        <translation>, 점수 소프트캡 %1</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="191"/>
        <source>, logit soft-cap %1</source>
        <translation>, 로짓 소프트캡 %1</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="192"/>
        <source>, %1 of %2 layers use a %3-token window</source>
        <translation>, 레이어 %2개 중 %1개가 %3 토큰 창 사용</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="193"/>
        <source>context</source>
        <translation>컨텍스트</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="193"/>
        <source>%1 tokens trained, %2 in use</source>
        <translation>학습 %1 토큰, 사용 중 %2</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="194"/>
        <source>tensor types</source>
        <translation>텐서 형식</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="195"/>
        <source>weights</source>
        <translation>가중치</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="196"/>
        <source>engine</source>
        <translation>엔진</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="424"/>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="57"/>
        <source>Tiny demo model (2.8M parameters, King James Bible): it continues scripture, it does not answer. Open a real GGUF to chat.</source>
        <translation>작은 데모 모델 (매개변수 280만 개, 킹 제임스 성경): 성경 구절을 이어 쓸 뿐 대답하지는 않습니다. 대화하려면 실제 GGUF 모델을 여세요.</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="437"/>
        <source>Demo model: it does not chat</source>
        <translation>데모 모델: 대화용이 아님</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="448"/>
        <source>Model info</source>
        <translation>모델 정보</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="455"/>
        <source>Models…</source>
        <translation>모델…</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="456"/>
        <source>Find and download models, with “will it fit?” (Ctrl+Shift+M)</source>
        <translation>모델 찾기 및 다운로드, “들어갈까?” 확인 포함 (Ctrl+Shift+M)</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="468"/>
        <source>Settings</source>
        <translation>설정</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="469"/>
        <source>Settings (Ctrl+,)</source>
        <translation>설정 (Ctrl+,)</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="476"/>
        <location filename="../app/testing/chat_state_probe.cpp" line="143"/>
        <source>Memory</source>
        <translation>메모리</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="477"/>
        <source>Memory panel (Ctrl+M)</source>
        <translation>메모리 패널 (Ctrl+M)</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="498"/>
        <source>Model error: </source>
        <translation>모델 오류: </translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="499"/>
        <source>Database error: </source>
        <translation>데이터베이스 오류: </translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="500"/>
        <source>Not saved: </source>
        <translation>저장되지 않음: </translation>
    </message>
</context>
<context>
    <name>MemoryPanel</name>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="70"/>
        <source>Memory</source>
        <translation>메모리</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="238"/>
        <source>Last save appended %1 (%2 tokens)</source>
        <translation>마지막 저장: %1 추가 (%2 토큰)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="230"/>
        <source>All snapshots: %1 of %2 budget</source>
        <translation>모든 스냅숏: 예산 %2 중 %1</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="231"/>
        <source>All snapshots: %1 (no budget)</source>
        <translation>모든 스냅숏: %1 (예산 없음)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="154"/>
        <source>Two sessions share the weights (%1): chat KV %2 (%3 tokens) · summary job KV %4 (%5 tokens) · together %6 of %7 %8 · sessions of the larger size that fit: %9</source>
        <translation>두 세션이 가중치(%1)를 함께 씁니다: 채팅 KV %2 (%3 토큰) · 요약 작업 KV %4 (%5 토큰) · 합계 %6 / %7 %8 · 더 큰 쪽 크기로 들어가는 세션 수: %9</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="157"/>
        <source>KV budget</source>
        <translation>KV 예산</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="157"/>
        <source>available</source>
        <translation>사용 가능</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="80"/>
        <source>Loading the model… Its memory is shown here once it is ready.</source>
        <translation>모델을 불러오는 중… 준비되면 여기에 메모리가 표시됩니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="81"/>
        <source>No model is loaded. Open a GGUF model (Ctrl+O), or the demo model under “Recent”, to see how its weights and this conversation&apos;s memory share the machine.</source>
        <translation>불러온 모델이 없습니다. GGUF 모델(Ctrl+O)이나 “최근” 아래의 데모 모델을 열면 가중치와 이 대화의 메모리가 컴퓨터를 어떻게 나눠 쓰는지 볼 수 있습니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="115"/>
        <source>Last reply (%5 KV): %1 tokens/s · first token after %2 ms · %3 of %4 prompt tokens computed</source>
        <translation>마지막 답변 (%5 KV): %1 토큰/초 · 첫 토큰까지 %2 ms · 프롬프트 토큰 %4개 중 %3개 계산</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="133"/>
        <source>Its reasoning: %1 tokens, %2 of KV</source>
        <translation>추론: 토큰 %1개, KV %2</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="136"/>
        <source>freed at its prompt: %1 (%2 tokens the cache held past the first changed token, earlier reasoning among them)</source>
        <translation>프롬프트에서 해제됨: %1 (처음 바뀐 토큰 이후 캐시에 있던 토큰 %2개, 이전 추론 포함)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="138"/>
        <source>freed at its prompt: %1 (%2 tokens the cache held past the first changed token)</source>
        <translation>프롬프트에서 해제됨: %1 (처음 바뀐 토큰 이후 캐시에 있던 토큰 %2개)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="165"/>
        <source>Where the KV lives</source>
        <translation>KV가 있는 곳</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="166"/>
        <source>Live: the open conversation&apos;s KV, what the next reply reads. RAM tier: the KV of conversations and branches you left, of summary jobs between runs and of the local server&apos;s idle users, kept within its budget (Settings) so that going back to them computes nothing again; the least recently used leave RAM when the budget is reached. Disk: the snapshots, read back when a conversation is no longer in RAM.</source>
        <translation>사용 중: 열린 대화의 KV로, 다음 답변이 읽는 것입니다. RAM 계층: 떠나온 대화와 분기, 실행 사이의 요약 작업, 로컬 서버의 유휴 사용자의 KV를 예산(설정) 안에서 보관하여, 다시 돌아가도 아무것도 다시 계산하지 않습니다. 예산에 이르면 가장 오래 쓰지 않은 것부터 RAM을 떠납니다. 디스크: 스냅숏으로, 대화가 더 이상 RAM에 없을 때 다시 읽습니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="177"/>
        <source>Live: %1 (%2 tokens)</source>
        <translation>사용 중: %1 (%2 토큰)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="178"/>
        <source>RAM tier: %1 of %2 · %3 conversations, %4 branches, %5 summaries, %6 server sessions</source>
        <translation>RAM 계층: %2 중 %1 · 대화 %3개, 분기 %4개, 요약 %5개, 서버 세션 %6개</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="182"/>
        <source> (and %1 shared with the live KV, counted there)</source>
        <translation> (그리고 사용 중인 KV와 공유하는 %1, 그쪽에 계산됨)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="183"/>
        <source> · %1 left RAM for the budget</source>
        <translation> · 예산 때문에 %1개가 RAM을 떠남</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="184"/>
        <source>Disk: no snapshot written in this run yet</source>
        <translation>디스크: 이번 실행에서 아직 쓴 스냅숏 없음</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="185"/>
        <source>Disk: %1 of %2</source>
        <translation>디스크: %2 중 %1</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="186"/>
        <source>Disk: %1 (no budget)</source>
        <translation>디스크: %1 (예산 없음)</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="197"/>
        <source>Memory decides how many of your conversations come back instantly: at %1 per token, the RAM tier&apos;s budget holds about %2 tokens of conversations you left; beyond it the oldest come back from disk, or are computed again.</source>
        <translation>메모리가 몇 개의 대화를 즉시 되돌릴 수 있는지 정합니다: 토큰당 %1이면 RAM 계층의 예산은 떠나온 대화를 약 %2 토큰 담습니다. 그보다 많으면 가장 오래된 것은 디스크에서 돌아오거나 다시 계산됩니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="203"/>
        <source>Snapshot on disk</source>
        <translation>디스크의 스냅숏</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="204"/>
        <source>After each reply the conversation&apos;s KV cache is saved to disk, so that reopening the conversation later restores it instead of computing every earlier token again. This line says what happened last for this conversation.</source>
        <translation>답변이 끝날 때마다 대화의 KV 캐시를 디스크에 저장해 두어, 나중에 대화를 다시 열 때 앞선 토큰을 모두 다시 계산하지 않고 복원합니다. 이 줄은 이 대화에서 마지막으로 일어난 일을 알려 줍니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="214"/>
        <source>Nothing saved or restored yet for this conversation.</source>
        <translation>이 대화에서는 아직 저장하거나 복원한 것이 없습니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="216"/>
        <source>Details: %1</source>
        <translation>자세히: %1</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="232"/>
        <source> · %1 least recently used removed</source>
        <translation> · 가장 오래 쓰지 않은 %1 삭제됨</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="234"/>
        <source>This conversation&apos;s snapshot: %1</source>
        <translation>이 대화의 스냅숏: %1</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="234"/>
        <source>This conversation has no snapshot yet.</source>
        <translation>이 대화에는 아직 스냅숏이 없습니다.</translation>
    </message>
    <message>
        <location filename="../ui/MemoryPanel.qml" line="237"/>
        <source>Last save rewrote the whole file: %1 (%2)</source>
        <translation>마지막 저장에서 파일 전체를 다시 썼습니다: %1 (%2)</translation>
    </message>
</context>
<context>
    <name>MessageBubble</name>
    <message>
        <location filename="../ui/MessageBubble.qml" line="173"/>
        <source>Document “%1” · %2 tokens, sent whole (its KV stays in the cache)</source>
        <translation>문서 “%1” · %2 토큰, 통째로 보냄 (그 KV는 캐시에 남음)</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="175"/>
        <source>Summary from %1 partial summaries, %2 merge level(s)%3 · %4 tokens evaluated · %5 s</source>
        <translation>부분 요약 %1개에서 만든 요약, 병합 %2단계%3 · %4 토큰 계산 · %5초</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="177"/>
        <source>, resumed after %1</source>
        <translation>, %1 이후 재개</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="370"/>
        <location filename="../ui/MessageBubble.qml" line="377"/>
        <source>code</source>
        <translation>코드</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="375"/>
        <source>Copy code</source>
        <translation>코드 복사</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="377"/>
        <source>Copy the %1 code</source>
        <translation>%1 코드 복사</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="436"/>
        <source>cut at the length limit</source>
        <translation>길이 제한에서 잘림</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="438"/>
        <source>interrupted: the app closed while this reply was written</source>
        <translation>중단됨: 이 답변을 쓰는 동안 앱이 종료되었습니다</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="450"/>
        <location filename="../ui/MessageBubble.qml" line="524"/>
        <source>Regenerate</source>
        <translation>다시 생성</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="453"/>
        <source>Write this reply again, as a new version (Ctrl+R)</source>
        <translation>이 답변을 새 버전으로 다시 씁니다 (Ctrl+R)</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="527"/>
        <source>Write this reply again as a new branch: the messages after it stay on the other branch (‹ ›)</source>
        <translation>이 답변을 새 분기로 다시 씁니다: 그 뒤의 메시지는 다른 분기에 남습니다 (‹ ›)</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="437"/>
        <source>stopped</source>
        <translation>중지됨</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="86"/>
        <source>Thinking…</source>
        <translation>생각하는 중…</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="88"/>
        <source>Thinking</source>
        <translation>생각</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="89"/>
        <source>Thought for %1 s · %2 tokens</source>
        <translation>%1초 동안 생각 · 토큰 %2개</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="91"/>
        <source> · %1 of KV</source>
        <translation> · KV %1</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="92"/>
        <source> · not finished</source>
        <translation> · 끝나지 않음</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="97"/>
        <source>No answer yet: the reply reached the length limit while still reasoning.</source>
        <translation>아직 답이 없습니다: 추론하는 도중에 답변이 길이 제한에 도달했습니다.</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="98"/>
        <source>No answer yet: the context filled up while the model was still reasoning.</source>
        <translation>아직 답이 없습니다: 모델이 추론하는 도중에 컨텍스트가 가득 찼습니다.</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="99"/>
        <source>No answer yet: the reply was stopped while still reasoning.</source>
        <translation>아직 답이 없습니다: 추론하는 도중에 답변이 중지되었습니다.</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="100"/>
        <source>No answer yet: the app closed while the model was still reasoning.</source>
        <translation>아직 답이 없습니다: 모델이 추론하는 도중에 앱이 종료되었습니다.</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="101"/>
        <source>No answer yet: the reply ended while still reasoning.</source>
        <translation>아직 답이 없습니다: 추론하는 도중에 답변이 끝났습니다.</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="289"/>
        <source>Fold the model&apos;s reasoning</source>
        <translation>모델의 추론 접기</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="289"/>
        <source>Show the model&apos;s reasoning</source>
        <translation>모델의 추론 보기</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="292"/>
        <source>The model&apos;s reasoning before its answer (Ctrl+Shift+T opens or folds the last one&apos;s). Templates that leave it out of later turns (Qwen 3, DeepSeek-R1) free its KV at the next message.</source>
        <translation>답하기 전 모델의 추론입니다 (Ctrl+Shift+T로 마지막 답의 추론을 열거나 접습니다). 이후 차례에서 추론을 빼는 템플릿(Qwen 3, DeepSeek-R1)은 다음 메시지에서 그 KV를 해제합니다.</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="370"/>
        <source> (continued)</source>
        <translation> (이어짐)</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="414"/>
        <source>This message is too long to edit here (%1 characters; up to %2 can be). Copy it, shorten it, and send it as a new message.</source>
        <translation>이 메시지는 여기서 편집하기에 너무 깁니다(%1자, 최대 %2자까지 가능). 복사해서 줄인 뒤 새 메시지로 보내세요.</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="442"/>
        <source>Continue</source>
        <translation>계속</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="445"/>
        <source>Write more of this reply (Ctrl+Shift+E)</source>
        <translation>이 답변 이어 쓰기 (Ctrl+Shift+E)</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="469"/>
        <source> · seed %1</source>
        <translation> · 시드 %1</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="470"/>
        <source>, continued with seed %1</source>
        <translation>, 시드 %1(으)로 이어 씀</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="473"/>
        <source>Sampled with seed %1: “Regenerate with this seed” writes the same text again (same settings and model).</source>
        <translation>시드 %1(으)로 샘플링했습니다. “이 시드로 다시 생성”을 누르면 같은 텍스트를 다시 씁니다 (같은 설정과 모델일 때).</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="481"/>
        <source>Fold</source>
        <translation>접기</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="481"/>
        <source>Show all %1 characters</source>
        <translation>%1자 모두 보기</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="493"/>
        <source>Previous branch</source>
        <translation>이전 분기</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="495"/>
        <source>Previous branch (Alt+Left switches the last message that has branches)</source>
        <translation>이전 분기 (Alt+Left는 분기가 있는 마지막 메시지를 바꿉니다)</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="501"/>
        <source>%1/%2</source>
        <translation>%1/%2</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="502"/>
        <source>Branch %1 of %2</source>
        <translation>분기 %1/%2</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="507"/>
        <source>Next branch</source>
        <translation>다음 분기</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="509"/>
        <source>Next branch (Alt+Right switches the last message that has branches)</source>
        <translation>다음 분기 (Alt+Right는 분기가 있는 마지막 메시지를 바꿉니다)</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="518"/>
        <source>not saved</source>
        <translation>저장되지 않음</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="464"/>
        <source>interrupted</source>
        <translation>중단됨</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="466"/>
        <source>%1 tokens · first token %2 ms · %3 tok/s · %4 evaluated</source>
        <translation>%1 토큰 · 첫 토큰 %2 ms · %3 토큰/초 · %4 계산</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="532"/>
        <source>Regenerate with this seed</source>
        <translation>이 시드로 다시 생성</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="535"/>
        <source>A new version sampled with seed %1</source>
        <translation>시드 %1(으)로 샘플링한 새 버전</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="539"/>
        <source>Copy</source>
        <translation>복사</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="542"/>
        <source>Copies the reasoning (there is no answer yet)</source>
        <translation>추론을 복사합니다 (아직 답이 없습니다)</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="543"/>
        <source>Copies the answer (not the reasoning)</source>
        <translation>답을 복사합니다 (추론은 제외)</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="550"/>
        <source>Edit</source>
        <translation>고치기</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="552"/>
        <source>Edit your message</source>
        <translation>메시지 고치기</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="554"/>
        <source>Edit here and resend (Up in the empty message box edits the last one)</source>
        <translation>여기서 고쳐서 다시 보내기 (빈 메시지 입력란에서 위쪽 화살표를 누르면 마지막 메시지를 고칩니다)</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="218"/>
        <source>Edited message</source>
        <translation>고치는 메시지</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="219"/>
        <source>Enter resends, Shift+Enter starts a new line, Esc cancels</source>
        <translation>Enter 다시 보내기, Shift+Enter 줄바꿈, Esc 취소</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="246"/>
        <source>Save &amp;&amp; resend</source>
        <translation>저장하고 다시 보내기</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="250"/>
        <source>Save and resend the edited message</source>
        <translation>고친 메시지를 저장하고 다시 보내기</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="252"/>
        <source>Resend the edited message; the replies after it are replaced (Enter)</source>
        <translation>고친 메시지를 다시 보냅니다. 그 뒤의 답변은 새 답변으로 바뀝니다 (Enter)</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="257"/>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="259"/>
        <source>Cancel the edit</source>
        <translation>고치기 취소</translation>
    </message>
    <message>
        <location filename="../ui/MessageBubble.qml" line="261"/>
        <source>Keep the message as it was (Esc)</source>
        <translation>메시지를 그대로 두기 (Esc)</translation>
    </message>
</context>
<context>
    <name>ModelLibrary</name>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="59"/>
        <source>Cannot be read: %1</source>
        <translation>읽을 수 없음: %1</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="60"/>
        <source>%1 · %2 · %3 · trained on %4 tokens</source>
        <translation>%1 · %2 · %3 · %4 토큰으로 학습</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="61"/>
        <source>unknown architecture</source>
        <translation>알 수 없는 아키텍처</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="73"/>
        <source>The model files in %1 and the models opened before. ↑ ↓ choose, Enter opens, Delete removes a file of that folder from disk or takes another off the list.</source>
        <translation>%1의 모델 파일과 전에 연 모델입니다. ↑ ↓ 선택, Enter 열기, Delete는 그 폴더의 파일이면 디스크에서 삭제하고 다른 파일이면 목록에서 뺍니다.</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="96"/>
        <source>No model files yet: download one from the Hub tab, or open one with Ctrl+O.</source>
        <translation>아직 모델 파일이 없습니다: 허브 탭에서 내려받거나 Ctrl+O로 여세요.</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="110"/>
        <source>My models</source>
        <translation>내 모델</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="138"/>
        <source> (loaded)</source>
        <translation> (불러옴)</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="161"/>
        <source>Last used: %1 · %2</source>
        <translation>마지막 사용: %1 · %2</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="165"/>
        <source>Open</source>
        <translation>열기</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="170"/>
        <source>Show in folder</source>
        <translation>폴더에서 보기</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="175"/>
        <source>Remove from disk…</source>
        <translation>디스크에서 삭제…</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="180"/>
        <location filename="../ui/ModelLibrary.qml" line="221"/>
        <source>Forget</source>
        <translation>목록에서 빼기</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="181"/>
        <source>Takes it off the list; the file stays on disk.</source>
        <translation>목록에서 뺍니다. 파일은 디스크에 그대로 남습니다.</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="202"/>
        <source>Remove from disk?</source>
        <translation>디스크에서 삭제할까요?</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="202"/>
        <source>Forget this model?</source>
        <translation>이 모델을 목록에서 뺄까요?</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="213"/>
        <source>Forget takes %1 off the list; the file stays on disk.</source>
        <translation>“목록에서 빼기”는 %1을(를) 목록에서만 빼고, 파일은 디스크에 그대로 둡니다.</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="214"/>
        <source>Remove %1 (%2) from disk? The file is deleted; this cannot be undone.</source>
        <translation>%1(%2)을(를) 디스크에서 삭제할까요? 파일이 지워지며 되돌릴 수 없습니다.</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="221"/>
        <source>Remove from disk</source>
        <translation>디스크에서 삭제</translation>
    </message>
    <message>
        <location filename="../ui/ModelLibrary.qml" line="234"/>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
</context>
<context>
    <name>ModelLibraryFacts</name>
    <message>
        <location filename="../app/library/model_library.cpp" line="50"/>
        <source>the file is not there</source>
        <translation>파일이 없습니다</translation>
    </message>
    <message>
        <location filename="../app/library/model_library.cpp" line="136"/>
        <source>%1 is the demo model that comes with kvchat: kvchat does not delete it. Use Forget to take it off the list.</source>
        <translation>%1은(는) kvchat에 함께 들어 있는 데모 모델이라 kvchat이 삭제하지 않습니다. 목록에서 없애려면 “목록에서 빼기”를 누르세요.</translation>
    </message>
    <message>
        <location filename="../app/library/model_library.cpp" line="146"/>
        <source>%1 is a file outside kvchat&apos;s models folder (%2) that a link there points to: kvchat deletes neither the link nor the file. Delete the link yourself to take it off the list.</source>
        <translation>%1은(는) kvchat 모델 폴더(%2) 밖에 있는 파일로, 그 폴더 안의 링크가 가리키고 있습니다. kvchat은 링크도 파일도 삭제하지 않습니다. 목록에서 없애려면 링크를 직접 지우세요.</translation>
    </message>
    <message>
        <location filename="../app/library/model_library.cpp" line="152"/>
        <source>%1 is not in kvchat&apos;s models folder (%2): kvchat only deletes files it downloaded or that you moved there. Use Forget to take it off the list.</source>
        <translation>%1은(는) kvchat 모델 폴더(%2)에 있지 않습니다. kvchat은 직접 내려받았거나 사용자가 그 폴더로 옮긴 파일만 삭제합니다. 목록에서 없애려면 “목록에서 빼기”를 누르세요.</translation>
    </message>
    <message>
        <location filename="../app/library/model_library.cpp" line="161"/>
        <source>%1 is the model loaded now: open another model first, then remove it.</source>
        <translation>%1은(는) 지금 불러온 모델입니다: 다른 모델을 먼저 연 뒤 삭제하세요.</translation>
    </message>
    <message>
        <location filename="../app/library/model_library.cpp" line="133"/>
        <source>%1 is not there any more.</source>
        <translation>%1이(가) 더 이상 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/library/model_library.cpp" line="181"/>
        <source>%1 could not be removed: %2</source>
        <translation>%1을(를) 삭제할 수 없습니다: %2</translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message>
        <location filename="../ui/ModelPicker.qml" line="33"/>
        <source>Loading model… %1%</source>
        <translation>모델 불러오는 중… %1%</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="34"/>
        <source>No model</source>
        <translation>모델 없음</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="36"/>
        <source>remote: %1</source>
        <translation>원격: %1</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="45"/>
        <source>Model: %1</source>
        <translation>모델: %1</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="46"/>
        <source>Choose a model and its load options (Ctrl+O)</source>
        <translation>모델과 불러오기 옵션 고르기 (Ctrl+O)</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="88"/>
        <source>My models</source>
        <translation>내 모델</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="90"/>
        <source>No model files in %1 yet: the Models page (Ctrl+Shift+M) downloads them.</source>
        <translation>%1에 아직 모델 파일이 없습니다. 모델 페이지(Ctrl+Shift+M)에서 내려받을 수 있습니다.</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="92"/>
        <source>Recent</source>
        <translation>최근</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="143"/>
        <source>Cannot be read: %1</source>
        <translation>읽을 수 없음: %1</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="146"/>
        <source>kvchat cannot run it</source>
        <translation>kvchat에서 실행할 수 없음</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="147"/>
        <source>Fits: %1 at %2 tokens of %3, %4 free</source>
        <translation>들어감: %2 토큰 %3에서 %1, 여유 %4</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="147"/>
        <source>Does not fit: %1 at %2 tokens of %3, %4 free</source>
        <translation>들어가지 않음: %2 토큰 %3에서 %1, 여유 %4</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="206"/>
        <source>Models to load</source>
        <translation>불러올 모델</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="244"/>
        <source>Load %1</source>
        <translation>%1 불러오기</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="258"/>
        <source>Context (tokens)</source>
        <translation>컨텍스트 (토큰)</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="266"/>
        <source>Context length in tokens</source>
        <translation>토큰 단위 컨텍스트 길이</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="268"/>
        <location filename="../ui/ModelPicker.qml" line="273"/>
        <source>KV type</source>
        <translation>KV 형식</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="275"/>
        <source>GPU layers</source>
        <translation>GPU 레이어</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="283"/>
        <source>auto</source>
        <translation>자동</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="285"/>
        <source>GPU layers (auto: as many as fit)</source>
        <translation>GPU 레이어 (자동: 들어가는 만큼)</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="287"/>
        <location filename="../ui/ModelPicker.qml" line="294"/>
        <source>When the context is full</source>
        <translation>컨텍스트가 가득 차면</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="293"/>
        <source>drop the oldest turns</source>
        <translation>가장 오래된 차례 버리기</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="293"/>
        <source>shift out the oldest half</source>
        <translation>가장 오래된 절반 밀어내기</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="293"/>
        <source>stop and ask</source>
        <translation>멈추고 묻기</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="293"/>
        <source>keep the start and the latest (attention sinks)</source>
        <translation>시작 부분과 최신 내용 유지 (어텐션 싱크)</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="311"/>
        <source>KV cache = 2 (keys and values) × %1 layers × %2 tokens × %3 KV heads × %4 values per head, in %5: %6</source>
        <translation>KV 캐시 = 2 (키와 값) × 레이어 %1개 × 토큰 %2개 × KV 헤드 %3개 × 헤드당 값 %4개, %5 형식: %6</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="319"/>
        <source>Load</source>
        <translation>불러오기</translation>
    </message>
    <message>
        <location filename="../ui/ModelPicker.qml" line="326"/>
        <source>Back</source>
        <translation>뒤로</translation>
    </message>
</context>
<context>
    <name>ModelPickerRow</name>
    <message>
        <location filename="../ui/ModelPickerRow.qml" line="44"/>
        <source>Open file…</source>
        <translation>파일 열기…</translation>
    </message>
    <message>
        <location filename="../ui/ModelPickerRow.qml" line="45"/>
        <source> (loaded)</source>
        <translation> (불러옴)</translation>
    </message>
    <message>
        <location filename="../ui/ModelPickerRow.qml" line="56"/>
        <source>A GGUF model anywhere on this computer; its load options come next.</source>
        <translation>이 컴퓨터 어디에 있든 GGUF 모델을 엽니다. 다음 단계에서 불러오기 옵션을 고릅니다.</translation>
    </message>
</context>
<context>
    <name>ModelSettings</name>
    <message>
        <location filename="../app/settings/model_settings.cpp" line="70"/>
        <source>%1 is not a KV type (f32, f16, q8_0, q4_0, q8_0r or q4_0r).</source>
        <translation>%1은(는) KV 형식이 아닙니다 (f32, f16, q8_0, q4_0, q8_0r 또는 q4_0r).</translation>
    </message>
    <message>
        <location filename="../app/settings/model_settings.cpp" line="74"/>
        <source>%1 rotates each head before quantizing it (a Walsh–Hadamard transform), which needs a power-of-two head size; this model&apos;s heads have %2: it cannot be used with this model.</source>
        <translation>%1은(는) 양자화 전에 각 헤드를 회전시키며(월시–아다마르 변환), 이를 위해 헤드 크기가 2의 거듭제곱이어야 합니다. 이 모델의 헤드 크기는 %2이므로 이 모델에는 쓸 수 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/settings/model_settings.cpp" line="82"/>
        <source>%1 stores keys in blocks of %2 values, but this model&apos;s heads have %3 (head_dim %3 is not a multiple of %2): it cannot be used with this model.</source>
        <translation>%1은(는) 키를 값 %2개 단위의 블록으로 저장하지만, 이 모델의 헤드는 값이 %3개입니다 (head_dim %3이(가) %2의 배수가 아님). 이 모델에서는 쓸 수 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/settings/model_settings.cpp" line="90"/>
        <source>The context cannot be negative (0 = the trained length).</source>
        <translation>컨텍스트는 음수일 수 없습니다 (0 = 학습 길이).</translation>
    </message>
    <message>
        <location filename="../app/settings/model_settings.cpp" line="93"/>
        <source>A context of %1 tokens is longer than the %2 this model was trained for: past %2 it sees positions it never learned, and replies usually turn to noise.</source>
        <translation>%1 토큰의 컨텍스트는 이 모델이 학습한 %2 토큰보다 깁니다. %2 토큰을 넘어서면 학습한 적 없는 위치를 보게 되어 답변이 대개 무의미해집니다.</translation>
    </message>
    <message>
        <location filename="../app/settings/model_settings.cpp" line="215"/>
        <source>Balanced</source>
        <translation>균형</translation>
    </message>
    <message>
        <location filename="../app/settings/model_settings.cpp" line="218"/>
        <source>Precise (factual, repeatable)</source>
        <translation>정확 (사실적, 재현 가능)</translation>
    </message>
    <message>
        <location filename="../app/settings/model_settings.cpp" line="220"/>
        <source>Creative (varied)</source>
        <translation>창의적 (다양함)</translation>
    </message>
</context>
<context>
    <name>ModelsPage</name>
    <message>
        <location filename="../ui/ModelsPage.qml" line="41"/>
        <source>%1 s</source>
        <translation>%1초</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="42"/>
        <source>%1 min</source>
        <translation>%1분</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="43"/>
        <source>%1 h</source>
        <translation>%1시간</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="46"/>
        <source>Reading its header…</source>
        <translation>헤더 읽는 중…</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="48"/>
        <source>Fit unknown: %1</source>
        <translation>들어갈지 알 수 없음: %1</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="51"/>
        <source>kvchat cannot run it: %1</source>
        <translation>kvchat에서 실행할 수 없음: %1</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="53"/>
        <source>Does not fit: the weights alone need %1, %2 free</source>
        <translation>들어가지 않음: 가중치만 %1 필요, 여유 %2</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="54"/>
        <source>Fits</source>
        <translation>들어감</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="54"/>
        <source>Does not fit at this context</source>
        <translation>이 컨텍스트에서는 들어가지 않음</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="55"/>
        <source>: %1 weights + %2 KV at %3 tokens (%4) of %5 free; the longest context that fits: %6 tokens; %7 such conversations side by side</source>
        <translation>: 가중치 %1 + %3 토큰의 KV %2 (%4), 여유 %5 중; 들어가는 가장 긴 컨텍스트: %6 토큰; 이런 대화를 동시에 %7개</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="69"/>
        <source>From the catalog: the file alone (%1) fits in the %2 free; the KV cache is counted once its header can be read</source>
        <translation>카탈로그 기준: 파일만으로는(%1) 여유 %2에 들어갑니다. KV 캐시는 헤더를 읽을 수 있게 되면 계산됩니다</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="71"/>
        <source>From the catalog: the file alone (%1) does not fit in the %2 free</source>
        <translation>카탈로그 기준: 파일만으로도(%1) 여유 %2에 들어가지 않습니다</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="128"/>
        <source>Models</source>
        <translation>모델</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="129"/>
        <location filename="../ui/ModelsPage.qml" line="153"/>
        <source>Hub</source>
        <translation>Hub</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="137"/>
        <source>The Hub&apos;s address (from %1). Empty: HF_ENDPOINT, else https://huggingface.co; plain http only to this computer. Enter saves it.</source>
        <translation>Hub 주소 (%1에서 가져옴). 비워 두면 HF_ENDPOINT, 없으면 https://huggingface.co를 씁니다. 일반 http는 이 컴퓨터로만 허용됩니다. Enter를 누르면 저장됩니다.</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="145"/>
        <source>models go to %1</source>
        <translation>모델 저장 위치: %1</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="147"/>
        <source>Close</source>
        <translation>닫기</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="161"/>
        <source>Remote</source>
        <translation>원격</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="164"/>
        <source>Models served elsewhere through the OpenAI API: vLLM, llama.cpp&apos;s server, Ollama, LM Studio, another kvchat</source>
        <translation>OpenAI API로 다른 곳에서 제공되는 모델: vLLM, llama.cpp 서버, Ollama, LM Studio, 다른 kvchat</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="187"/>
        <source>Will it fit? Context</source>
        <translation>들어갈까? 컨텍스트</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="194"/>
        <source>KV type</source>
        <translation>KV 형식</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="204"/>
        <source>free GPU memory now: %1</source>
        <translation>현재 여유 GPU 메모리: %1</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="205"/>
        <source>free memory now: %1</source>
        <translation>현재 여유 메모리: %1</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="211"/>
        <source>access token set</source>
        <translation>액세스 토큰 설정됨</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="211"/>
        <source>access token (gated models)</source>
        <translation>액세스 토큰 (접근 제한 모델)</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="214"/>
        <source>Kept in memory only, never saved nor logged; HF_TOKEN is read at start.</source>
        <translation>메모리에만 보관하며 저장하거나 기록하지 않습니다. HF_TOKEN은 시작할 때 읽습니다.</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="230"/>
        <source>Search the Hub for GGUF models (Enter)</source>
        <translation>Hub에서 GGUF 모델 검색 (Enter)</translation>
    </message>
    <message>
        <location filename="../ui/HubListHeader.qml" line="15"/>
        <source>Search results</source>
        <translation>검색 결과</translation>
    </message>
    <message>
        <location filename="../ui/HubListHeader.qml" line="16"/>
        <source>Catalog (sizes approximate)</source>
        <translation>카탈로그 (크기는 대략적)</translation>
    </message>
    <message>
        <location filename="../ui/HubListHeader.qml" line="17"/>
        <source>Catalog</source>
        <translation>카탈로그</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="255"/>
        <source> (gated: needs a token)</source>
        <translation> (접근 제한: 토큰 필요)</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="256"/>
        <source>%1 downloads</source>
        <translation>다운로드 %1회</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="267"/>
        <source>Choose a model on the left</source>
        <translation>왼쪽에서 모델을 선택하세요</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="284"/>
        <source>Try again</source>
        <translation>다시 시도</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="325"/>
        <source>%1, %2 layers, %3 KV heads × %4, trained on %5 tokens; tensors: %6</source>
        <translation>%1, 레이어 %2개, KV 헤드 %3개 × %4, %5 토큰으로 학습; 텐서: %6</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="340"/>
        <source>Will it fit?</source>
        <translation>들어갈까?</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="344"/>
        <source>Downloaded</source>
        <translation>다운로드됨</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="344"/>
        <source>Download</source>
        <translation>다운로드</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="348"/>
        <source>Ctrl+Shift+D downloads the selected file</source>
        <translation>Ctrl+Shift+D로 선택한 파일을 다운로드합니다</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="356"/>
        <source>Downloads</source>
        <translation>다운로드</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="390"/>
        <source>%1 of %2 · %3/s · %4 left</source>
        <translation>%1 / %2 · %3/s · %4 남음</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="394"/>
        <source>Downloaded, SHA-256 verified, opened</source>
        <translation>다운로드, SHA-256 확인, 열기 완료</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="409"/>
        <source>Pause</source>
        <translation>일시 중지</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="414"/>
        <source>Resume</source>
        <translation>이어서 하기</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="419"/>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="62"/>
        <source> (%1 tokens is the context it was trained on, used instead of the %2 asked for)</source>
        <translation> (%1 토큰은 이 모델이 학습된 컨텍스트로, 요청한 %2 대신 쓰입니다)</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="383"/>
        <source>Download finished</source>
        <translation>다운로드 완료</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="383"/>
        <source>Download progress</source>
        <translation>다운로드 진행률</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="155"/>
        <source>My models</source>
        <translation>내 모델</translation>
    </message>
    <message>
        <location filename="../ui/ModelsPage.qml" line="158"/>
        <source>The model files on this computer (Ctrl+PgDown / Ctrl+PgUp switch tabs)</source>
        <translation>이 컴퓨터의 모델 파일 (Ctrl+PgDown / Ctrl+PgUp으로 탭 전환)</translation>
    </message>
</context>
<context>
    <name>NoticeBanner</name>
    <message>
        <location filename="../ui/NoticeBanner.qml" line="51"/>
        <source>Dismiss</source>
        <translation>닫기</translation>
    </message>
    <message>
        <location filename="../ui/NoticeBanner.qml" line="72"/>
        <source>Alt+%1</source>
        <translation>Alt+%1</translation>
    </message>
    <message>
        <location filename="../ui/NoticeBanner.qml" line="105"/>
        <source>Dismiss the message</source>
        <translation>메시지 닫기</translation>
    </message>
</context>
<context>
    <name>PageSwitch</name>
    <message>
        <location filename="../ui/PageSwitch.qml" line="20"/>
        <source>Previous page</source>
        <translation>이전 페이지</translation>
    </message>
    <message>
        <location filename="../ui/PageSwitch.qml" line="29"/>
        <source>Page %1 of %2 · %3 characters</source>
        <translation>%2페이지 중 %1페이지 · %3자</translation>
    </message>
    <message>
        <location filename="../ui/PageSwitch.qml" line="35"/>
        <source>Next page</source>
        <translation>다음 페이지</translation>
    </message>
    <message>
        <location filename="../ui/PageSwitch.qml" line="42"/>
        <source>Last</source>
        <translation>마지막</translation>
    </message>
    <message>
        <location filename="../ui/PageSwitch.qml" line="44"/>
        <source>Last page</source>
        <translation>마지막 페이지</translation>
    </message>
</context>
<context>
    <name>PartialSummaries</name>
    <message>
        <location filename="../ui/PartialSummaries.qml" line="18"/>
        <source>Hide partial summaries (%1)</source>
        <translation>부분 요약 숨기기 (%1)</translation>
    </message>
    <message>
        <location filename="../ui/PartialSummaries.qml" line="18"/>
        <source>Show partial summaries (%1)</source>
        <translation>부분 요약 보기 (%1)</translation>
    </message>
    <message>
        <location filename="../ui/PartialSummaries.qml" line="40"/>
        <source>level 0 · chunk %1 · document tokens %2–%3</source>
        <translation>0단계 · 조각 %1 · 문서 토큰 %2–%3</translation>
    </message>
    <message>
        <location filename="../ui/PartialSummaries.qml" line="41"/>
        <source>level %1 · merge %2 · of summaries %3–%4</source>
        <translation>%1단계 · 병합 %2 · 요약 %3–%4</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <location filename="../app/remote/remote_endpoints.cpp" line="25"/>
        <source>cannot read %1: %2</source>
        <translation>%1을(를) 읽을 수 없습니다: %2</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_endpoints.cpp" line="32"/>
        <source>%1 is not the endpoints file kvchat writes (%2); it is left as it is</source>
        <translation>%1은(는) kvchat이 쓰는 엔드포인트 파일이 아닙니다(%2). 그대로 둡니다</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_endpoints.cpp" line="66"/>
        <location filename="../app/remote/remote_endpoints.cpp" line="71"/>
        <location filename="../app/remote/remote_key_store.cpp" line="86"/>
        <location filename="../app/remote/remote_key_store.cpp" line="91"/>
        <source>cannot write %1: %2</source>
        <translation>%1에 쓸 수 없습니다: %2</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_endpoints.cpp" line="139"/>
        <source>the remote endpoint of this model was removed (Models page → Remote)</source>
        <translation>이 모델의 원격 엔드포인트가 제거되었습니다(모델 페이지 → 원격)</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_endpoints.cpp" line="147"/>
        <source>the API key of %1 could not be read from the %2: %3</source>
        <translation>%1의 API 키를 %2에서 읽을 수 없습니다: %3</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_endpoints.cpp" line="149"/>
        <source>keyring</source>
        <translation>키링</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_endpoints.cpp" line="151"/>
        <source>it is not there</source>
        <translation>거기에 없습니다</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_key_store.cpp" line="37"/>
        <source>the keyring did not answer within 5 s</source>
        <translation>키링이 5초 안에 응답하지 않았습니다</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_key_store.cpp" line="107"/>
        <source>this build has no keyring support; enter the key again</source>
        <translation>이 빌드는 키링을 지원하지 않습니다. 키를 다시 입력하세요</translation>
    </message>
</context>
<context>
    <name>RemoteEngine</name>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="25"/>
        <source>Remote engine: %1</source>
        <translation>원격 엔진: %1</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="26"/>
        <source>The model runs on another machine; its KV cache is that engine&apos;s, shared by every request it serves. What it publishes is read every few seconds: vLLM&apos;s /metrics (KV cache use, requests, prefix-cache hits), llama.cpp&apos;s /slots and /metrics, kvchat&apos;s /health (sessions, KV bytes; it answers a caller with its key). An engine that publishes nothing leaves this conversation&apos;s own tokens, and the KV they take by the formula when the model&apos;s shape is known from a GGUF file of it.</source>
        <translation>모델은 다른 컴퓨터에서 실행되며, KV 캐시는 그 엔진의 것으로 엔진이 처리하는 모든 요청이 함께 씁니다. 엔진이 공개하는 내용을 몇 초마다 읽습니다: vLLM의 /metrics(KV 캐시 사용량, 요청, 접두사 캐시 적중), llama.cpp의 /slots와 /metrics, kvchat의 /health(세션, KV 바이트; 키를 가진 호출자에게 답함). 아무것도 공개하지 않는 엔진이라면 이 대화 자체의 토큰과, 모델의 GGUF 파일로 구조를 알 때 공식으로 계산한 KV가 남습니다.</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="34"/>
        <source>Asking the engine what it publishes…</source>
        <translation>엔진이 무엇을 공개하는지 묻는 중…</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="35"/>
        <source>Published by %1</source>
        <translation>%1이(가) 공개한 값</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="36"/>
        <source>The engine publishes nothing kvchat can read about its memory.</source>
        <translation>이 엔진은 kvchat이 읽을 수 있는 메모리 정보를 공개하지 않습니다.</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="44"/>
        <source>The remote engine&apos;s KV cache in use</source>
        <translation>원격 엔진의 KV 캐시 사용량</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="55"/>
        <source>KV cache in use: %1 of the engine&apos;s, across all its requests</source>
        <translation>KV 캐시 사용: 엔진 전체의 %1, 모든 요청 합계</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="56"/>
        <source>KV cache: %1 tokens</source>
        <translation>KV 캐시: %1 토큰</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="58"/>
        <source>KV allocated: %1, of it shared between sessions %2%3</source>
        <translation>할당된 KV: %1, 그중 세션 간 공유 %2%3</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="61"/>
        <source>KV budget: %1</source>
        <translation>KV 예산: %1</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="63"/>
        <source>Sessions: %1 busy, %2 idle</source>
        <translation>세션: 사용 중 %1, 유휴 %2</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="65"/>
        <source>Its RAM tier: %1 of %2</source>
        <translation>엔진의 RAM 계층: %2 중 %1</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="67"/>
        <source>Requests: %1 running, %2 waiting</source>
        <translation>요청: 실행 중 %1, 대기 중 %2</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="68"/>
        <source>Prefix cache hit rate: %1</source>
        <translation>접두사 캐시 적중률: %1</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="70"/>
        <source>Slots: %1 of %2 tokens each, %3 busy</source>
        <translation>슬롯: 각 %2 토큰짜리 %1개, 사용 중 %3</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="82"/>
        <source>This conversation: its tokens are counted by the engine after the next reply.</source>
        <translation>이 대화: 토큰 수는 다음 답변 뒤 엔진이 셉니다.</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="83"/>
        <source>This conversation: %1 tokens (the last reply&apos;s prompt and answer, as the engine counted them).</source>
        <translation>이 대화: %1 토큰(엔진이 센 마지막 답변의 프롬프트와 답변).</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="85"/>
        <source>About %1 of KV — an estimate: 2 × %2 layers × %3 tokens × %4 KV heads × %5 × 2 bytes (f16; the engine&apos;s KV type is not published).</source>
        <translation>KV 약 %1 — 추정치: 2 × 레이어 %2개 × %3 토큰 × KV 헤드 %4개 × %5 × 2바이트(f16; 엔진의 KV 형식은 공개되지 않음).</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="95"/>
        <source>Another GGUF for the estimate…</source>
        <translation>추정에 쓸 다른 GGUF…</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="95"/>
        <source>A GGUF of this model, for the KV estimate…</source>
        <translation>KV 추정을 위한 이 모델의 GGUF…</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="116"/>
        <source>Not here with a remote model: KV snapshots on disk, the RAM tier, KV types, context policies and the what-if table on the loaded weights — the remote engine keeps its own cache — nor document summaries and tools, which plan with a local model&apos;s tokenizer. Sampling is sent as OpenAI&apos;s temperature, top-p and seed; top-k, min-p and the repetition penalty are the engine&apos;s.</source>
        <translation>원격 모델에서는 없는 것: 디스크의 KV 스냅숏, RAM 계층, KV 형식, 컨텍스트 정책, 불러온 가중치 기준의 가정 표 — 원격 엔진은 자기 캐시를 따로 관리합니다 — 그리고 로컬 모델의 토크나이저로 계획하는 문서 요약과 도구. 샘플링은 OpenAI의 temperature, top-p, seed로 보내며, top-k, min-p, 반복 페널티는 엔진이 정합니다.</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="130"/>
        <source>A GGUF file of the same model (only its header is read)</source>
        <translation>같은 모델의 GGUF 파일(헤더만 읽음)</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="131"/>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 모델 (*.gguf)</translation>
    </message>
    <message>
        <location filename="../ui/memory/RemoteEngine.qml" line="131"/>
        <source>All files (*)</source>
        <translation>모든 파일 (*)</translation>
    </message>
</context>
<context>
    <name>RemoteHeader</name>
    <message>
        <location filename="../app/hub/remote_header.cpp" line="59"/>
        <source>The server sent another byte range than asked for %1.</source>
        <translation>서버가 %1에 대해 요청과 다른 바이트 범위를 보냈습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/remote_header.cpp" line="105"/>
        <source>The server did not say how large %1 is.</source>
        <translation>서버가 %1의 크기를 알려 주지 않았습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/remote_header.cpp" line="119"/>
        <source>The server sent %1 of %2 bytes of %3.</source>
        <translation>서버가 %3의 %2바이트 중 %1바이트를 보냈습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/remote_header.cpp" line="134"/>
        <source>%1 is not a GGUF kvchat can read: %2</source>
        <translation>%1은(는) kvchat이 읽을 수 있는 GGUF가 아닙니다: %2</translation>
    </message>
    <message>
        <location filename="../app/hub/remote_header.cpp" line="152"/>
        <source>The GGUF header of %1 is larger than %2: kvchat does not read it.</source>
        <translation>%1의 GGUF 헤더가 %2보다 큽니다. kvchat은 이 헤더를 읽지 않습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/remote_header.cpp" line="170"/>
        <source>The connection broke off %1 times while reading the header of %2 (%3 of the %4 bytes asked for had arrived): giving up; try again later. The last time: %5</source>
        <translation>%2의 헤더를 읽는 동안 연결이 %1번 끊겼습니다(요청한 %4바이트 중 %3바이트가 도착함). 중단합니다. 나중에 다시 시도하세요. 마지막 오류: %5</translation>
    </message>
</context>
<context>
    <name>RemoteModels</name>
    <message>
        <location filename="../ui/RemoteModels.qml" line="34"/>
        <source>API key in the system keyring</source>
        <translation>API 키는 시스템 키링에</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="35"/>
        <source>API key in %1, readable only by you (no keyring answered)</source>
        <translation>API 키는 나만 읽을 수 있는 %1에 (응답한 키링 없음)</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="36"/>
        <source>no API key</source>
        <translation>API 키 없음</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="50"/>
        <source>A model served elsewhere — vLLM, llama.cpp&apos;s server, Ollama, LM Studio or another kvchat — through the OpenAI API. Its replies stream into this window like a local model&apos;s; its engine&apos;s memory shows in the memory panel where it publishes it. The API key goes only to the address given: redirects are not followed.</source>
        <translation>다른 곳에서 OpenAI API로 제공되는 모델 — vLLM, llama.cpp 서버, Ollama, LM Studio 또는 다른 kvchat. 답변은 로컬 모델처럼 이 창에 흘러들고, 엔진이 공개하는 경우 그 메모리가 메모리 패널에 나타납니다. API 키는 입력한 주소로만 갑니다: 리디렉션은 따르지 않습니다.</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="63"/>
        <source>Address</source>
        <translation>주소</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="70"/>
        <source>The endpoint&apos;s base URL</source>
        <translation>엔드포인트의 기본 URL</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="72"/>
        <source>API key</source>
        <translation>API 키</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="78"/>
        <source>optional</source>
        <translation>선택 사항</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="82"/>
        <source>Kept in the system keyring; where none answers, in %1 (readable only by you).</source>
        <translation>시스템 키링에 보관합니다. 응답하는 키링이 없으면 %1에 보관합니다(나만 읽을 수 있음).</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="83"/>
        <source>Kept in %1, readable only by you.</source>
        <translation>나만 읽을 수 있는 %1에 보관합니다.</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="85"/>
        <source>Name</source>
        <translation>이름</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="92"/>
        <source>optional: the host&apos;s name</source>
        <translation>선택 사항: 호스트 이름</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="97"/>
        <source>Add endpoint</source>
        <translation>엔드포인트 추가</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="138"/>
        <source>Refresh</source>
        <translation>새로 고침</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="142"/>
        <source>Remove</source>
        <translation>제거</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="151"/>
        <source>The API key goes unencrypted (http://) to a host that is not this computer: use https:// where the endpoint offers it.</source>
        <translation>API 키가 암호화되지 않은 채(http://) 이 컴퓨터가 아닌 호스트로 갑니다: 엔드포인트가 제공하면 https://를 쓰세요.</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="155"/>
        <source>Listing its models…</source>
        <translation>모델 목록을 가져오는 중…</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="178"/>
        <source>context %1 tokens</source>
        <translation>컨텍스트 %1 토큰</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="183"/>
        <source>Loaded</source>
        <translation>불러옴</translation>
    </message>
    <message>
        <location filename="../ui/RemoteModels.qml" line="183"/>
        <source>Open</source>
        <translation>열기</translation>
    </message>
</context>
<context>
    <name>SectionHeader</name>
    <message>
        <location filename="../ui/SectionHeader.qml" line="45"/>
        <source>What is this? %1</source>
        <translation>이것은 무엇인가요? %1</translation>
    </message>
    <message>
        <location filename="../ui/SectionHeader.qml" line="47"/>
        <source>What is this?</source>
        <translation>이것은 무엇인가요?</translation>
    </message>
</context>
<context>
    <name>ServerIndicator</name>
    <message>
        <location filename="../ui/ServerIndicator.qml" line="18"/>
        <source>Server on · %1 busy</source>
        <translation>서버 켜짐 · %1개 작업 중</translation>
    </message>
    <message>
        <location filename="../ui/ServerIndicator.qml" line="19"/>
        <source>Server not serving</source>
        <translation>서버가 제공하지 않음</translation>
    </message>
    <message>
        <location filename="../ui/ServerIndicator.qml" line="20"/>
        <source>Server off</source>
        <translation>서버 꺼짐</translation>
    </message>
    <message>
        <location filename="../ui/ServerIndicator.qml" line="26"/>
        <source>Local server at %1. Click for its sessions and requests.</source>
        <translation>로컬 서버 주소: %1. 클릭하면 세션과 요청을 볼 수 있습니다.</translation>
    </message>
    <message>
        <location filename="../ui/ServerIndicator.qml" line="28"/>
        <source>The local server is off. Click for the server view.</source>
        <translation>로컬 서버가 꺼져 있습니다. 클릭하면 서버 화면을 엽니다.</translation>
    </message>
</context>
<context>
    <name>ServerRequestLog</name>
    <message>
        <location filename="../ui/ServerRequestLog.qml" line="16"/>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <location filename="../ui/ServerRequestLog.qml" line="21"/>
        <source>time</source>
        <translation>시각</translation>
    </message>
    <message>
        <location filename="../ui/ServerRequestLog.qml" line="22"/>
        <source>route</source>
        <translation>경로</translation>
    </message>
    <message>
        <location filename="../ui/ServerRequestLog.qml" line="23"/>
        <source>status</source>
        <translation>상태</translation>
    </message>
    <message>
        <location filename="../ui/ServerRequestLog.qml" line="24"/>
        <source>tokens in → out</source>
        <translation>토큰 입력 → 출력</translation>
    </message>
    <message>
        <location filename="../ui/ServerRequestLog.qml" line="25"/>
        <source>duration</source>
        <translation>소요 시간</translation>
    </message>
    <message>
        <location filename="../ui/ServerRequestLog.qml" line="26"/>
        <source>client</source>
        <translation>클라이언트</translation>
    </message>
    <message>
        <location filename="../ui/ServerRequestLog.qml" line="38"/>
        <source>Requests to the local server</source>
        <translation>로컬 서버에 온 요청</translation>
    </message>
    <message>
        <location filename="../ui/ServerRequestLog.qml" line="46"/>
        <source>No request yet.</source>
        <translation>아직 요청이 없습니다.</translation>
    </message>
    <message>
        <location filename="../ui/ServerRequestLog.qml" line="56"/>
        <source>status %1</source>
        <translation>상태 %1</translation>
    </message>
    <message>
        <location filename="../ui/ServerRequestLog.qml" line="67"/>
        <source>%1 ms</source>
        <translation>%1ms</translation>
    </message>
</context>
<context>
    <name>ServerUsers</name>
    <message>
        <location filename="../ui/memory/ServerUsers.qml" line="21"/>
        <source>Local server: its users</source>
        <translation>로컬 서버: 사용자</translation>
    </message>
    <message>
        <location filename="../ui/memory/ServerUsers.qml" line="22"/>
        <source>Each program talking to the local server gets a session of its own: its own KV cache over the same weights, growing with its conversation, kept while idle so a follow-up reuses it. Sessions whose prompts begin alike (a system prompt, a document) hold those KV blocks once. The last line divides the memory left by the average session&apos;s KV.</source>
        <translation>로컬 서버와 대화하는 프로그램마다 자기 세션을 받습니다. 같은 가중치 위에 자기 KV 캐시가 있고, 대화와 함께 커지며, 쉬는 동안에도 남아 있어 이어지는 요청이 다시 씁니다. 프롬프트의 시작이 같은 세션들(시스템 프롬프트, 문서)은 그 KV 블록을 한 번만 가집니다. 마지막 줄은 남은 메모리를 세션 평균 KV로 나눈 값입니다.</translation>
    </message>
    <message>
        <location filename="../ui/memory/ServerUsers.qml" line="30"/>
        <source>%1 of %2 sessions in use · %3 busy · KV %4 · shared between sessions %5 · requests served: %6</source>
        <translation>세션 %2개 중 %1개 사용 · %3개 작업 중 · KV %4 · 세션 간 공유 %5 · 처리한 요청: %6</translation>
    </message>
    <message>
        <location filename="../ui/memory/ServerUsers.qml" line="46"/>
        <source>#%1 · %2 · %3 tokens · KV %4%5 · requests: %6</source>
        <translation>#%1 · %2 · %3 토큰 · KV %4%5 · 요청: %6</translation>
    </message>
    <message>
        <location filename="../ui/memory/ServerUsers.qml" line="47"/>
        <source>busy</source>
        <translation>작업 중</translation>
    </message>
    <message>
        <location filename="../ui/memory/ServerUsers.qml" line="47"/>
        <source>idle</source>
        <translation>대기</translation>
    </message>
    <message>
        <location filename="../ui/memory/ServerUsers.qml" line="49"/>
        <source> (%1 shared)</source>
        <translation> (%1 공유)</translation>
    </message>
    <message>
        <location filename="../ui/memory/ServerUsers.qml" line="52"/>
        <source>no client yet</source>
        <translation>아직 클라이언트 없음</translation>
    </message>
    <message>
        <location filename="../ui/memory/ServerUsers.qml" line="62"/>
        <source>More users of this size that fit: — (no session holds KV yet)</source>
        <translation>이 크기의 사용자를 더 받을 수 있는 수: — (아직 KV를 가진 세션이 없음)</translation>
    </message>
    <message>
        <location filename="../ui/memory/ServerUsers.qml" line="63"/>
        <source>More users of this size that fit: %1 (in the %2)</source>
        <translation>이 크기의 사용자를 더 받을 수 있는 수: %1 (%2 기준)</translation>
    </message>
    <message>
        <location filename="../ui/memory/ServerUsers.qml" line="64"/>
        <source>server&apos;s KV budget</source>
        <translation>서버의 KV 예산</translation>
    </message>
    <message>
        <location filename="../ui/memory/ServerUsers.qml" line="64"/>
        <source>memory available</source>
        <translation>사용 가능한 메모리</translation>
    </message>
</context>
<context>
    <name>ServerView</name>
    <message>
        <location filename="../ui/ServerView.qml" line="21"/>
        <source>Local server</source>
        <translation>로컬 서버</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="32"/>
        <source>Serving %1 at %2</source>
        <translation>%1을(를) %2에서 제공 중</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="33"/>
        <source>Off.</source>
        <translation>꺼짐.</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="36"/>
        <source>No restart since the app started.</source>
        <translation>앱을 시작한 뒤로 다시 시작한 적이 없습니다.</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="37"/>
        <source>Last restart at %1: %2 (the counters and the log were kept).</source>
        <translation>마지막 다시 시작 %1: %2 (카운터와 기록은 유지됨).</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="38"/>
        <source>Last restart at %1: %2 (the counters started again).</source>
        <translation>마지막 다시 시작 %1: %2 (카운터를 처음부터 다시 셈).</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="66"/>
        <source>Requests served: %1 · refused, every session busy: %2 · clients that hung up: %3 · prompt tokens evaluated: %4</source>
        <translation>처리한 요청: %1 · 모든 세션이 작업 중이라 거절: %2 · 연결을 끊은 클라이언트: %3 · 계산한 프롬프트 토큰: %4</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="80"/>
        <source>Endpoints</source>
        <translation>엔드포인트</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="92"/>
        <source>Sessions and their clients</source>
        <translation>세션과 클라이언트</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="97"/>
        <source>No client has been served yet.</source>
        <translation>아직 처리한 클라이언트가 없습니다.</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="103"/>
        <source>client</source>
        <translation>클라이언트</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="104"/>
        <source>user agent</source>
        <translation>사용자 에이전트</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="105"/>
        <source>model</source>
        <translation>모델</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="106"/>
        <source>state</source>
        <translation>상태</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="107"/>
        <source>tokens</source>
        <translation>토큰</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="108"/>
        <source>KV</source>
        <translation>KV</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="109"/>
        <source>shared</source>
        <translation>공유</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="122"/>
        <source>busy</source>
        <translation>작업 중</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="122"/>
        <source>idle</source>
        <translation>대기</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="129"/>
        <source>Requests (the last 200, newest first)</source>
        <translation>요청 (최근 200개, 최신순)</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="136"/>
        <source>Log the text of each request&apos;s last message</source>
        <translation>각 요청의 마지막 메시지 내용을 기록</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="143"/>
        <source>Log the text of each request&apos;s last message (its first 200 characters). Off: the log holds routes, statuses and token counts, never what clients wrote nor their keys.</source>
        <translation>각 요청의 마지막 메시지 내용(앞 200자)을 기록합니다. 끄면 기록에는 경로, 상태, 토큰 수만 남고, 클라이언트가 쓴 내용이나 키는 절대 남지 않습니다.</translation>
    </message>
    <message>
        <location filename="../ui/ServerView.qml" line="151"/>
        <source>Server settings…</source>
        <translation>서버 설정…</translation>
    </message>
</context>
<context>
    <name>SettingsDrawer</name>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="527"/>
        <location filename="../ui/SettingsDrawer.qml" line="532"/>
        <source>GPU layers</source>
        <translation>GPU 레이어</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="530"/>
        <source>auto</source>
        <translation>자동</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="538"/>
        <source>With the CUDA backend: how many layers run on the GPU, the rest on the CPU. Auto puts as many as fit the GPU&apos;s free memory at this context and KV type.</source>
        <translation>CUDA 백엔드에서 GPU에서 실행할 레이어 수입니다. 나머지는 CPU에서 실행됩니다. 자동은 이 컨텍스트와 KV 타입에서 GPU의 여유 메모리에 들어가는 만큼 올립니다.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="212"/>
        <location filename="../ui/SettingsDrawer.qml" line="216"/>
        <source>Language</source>
        <translation>언어</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="103"/>
        <source>no limit</source>
        <translation>제한 없음</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="171"/>
        <source>No engine change waits: the settings above are in force.</source>
        <translation>적용을 기다리는 엔진 변경이 없습니다. 위의 설정이 쓰이고 있습니다.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="172"/>
        <source>Apply keeps these engine settings for %1: it is loaded with them.</source>
        <translation>적용하면 이 엔진 설정을 %1에 맞춰 저장합니다. 이 모델은 이 설정으로 불러옵니다.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="173"/>
        <source>Apply loads %1 again with these engine settings.</source>
        <translation>적용하면 이 엔진 설정으로 %1을(를) 다시 불러옵니다.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="174"/>
        <source>Apply reloads %1 with these engine settings: the conversation is computed again.</source>
        <translation>적용하면 이 엔진 설정으로 %1을(를) 다시 불러옵니다. 대화는 처음부터 다시 계산됩니다.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="198"/>
        <source>Changes here apply at once. The engine&apos;s choices reload the model, so they wait for Apply at the bottom.</source>
        <translation>여기서 바꾼 설정은 바로 적용됩니다. 엔진 설정은 모델을 다시 불러오므로 아래의 적용을 누를 때까지 기다립니다.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="218"/>
        <source>System (%1)</source>
        <translation>시스템 (%1)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="223"/>
        <source>Conversation</source>
        <translation>대화</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="224"/>
        <location filename="../ui/SettingsDrawer.qml" line="282"/>
        <source>System prompt</source>
        <translation>시스템 프롬프트</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="290"/>
        <source>Optional instructions for this conversation</source>
        <translation>이 대화에 줄 지시 (선택)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="321"/>
        <source>For %1</source>
        <translation>대상: %1</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="329"/>
        <source>Sampling, KV type, context and its policy below are kept for this model (head size %1, trained for %2 tokens).</source>
        <translation>아래의 샘플링, KV 형식, 컨텍스트와 그 정책은 이 모델에 대해 유지됩니다 (헤드 크기 %1, %2 토큰으로 학습).</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="330"/>
        <source>Sampling, KV type, context and its policy below are kept for this model.</source>
        <translation>아래의 샘플링, KV 형식, 컨텍스트와 그 정책은 이 모델에 대해 유지됩니다.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="340"/>
        <source>Choose another value under Engine below and Apply: the model is loaded again.</source>
        <translation>아래 엔진에서 다른 값을 고르고 적용하세요. 모델을 다시 불러옵니다.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="343"/>
        <source>Sampling</source>
        <translation>샘플링</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="346"/>
        <source>preset</source>
        <translation>프리셋</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="351"/>
        <source>Sampling preset</source>
        <translation>샘플링 프리셋</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="353"/>
        <source>Custom</source>
        <translation>사용자 지정</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="361"/>
        <source>temperature</source>
        <translation>온도</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="365"/>
        <source>top-k</source>
        <translation>top-k</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="369"/>
        <source>top-p</source>
        <translation>top-p</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="373"/>
        <source>min-p</source>
        <translation>min-p</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="377"/>
        <source>repeat penalty</source>
        <translation>반복 페널티</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="381"/>
        <source>seed</source>
        <translation>시드</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="382"/>
        <source>random</source>
        <translation>무작위</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="382"/>
        <source>−1 or “random”: a fresh seed for every reply (each reply shows its own). A number: every reply sampled with it.</source>
        <translation>−1 또는 “무작위”: 답변마다 새 시드 (각 답변에 그 시드가 표시됨). 숫자: 모든 답변을 그 시드로 샘플링.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="385"/>
        <source>max tokens</source>
        <translation>최대 토큰</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="398"/>
        <source>KV snapshots</source>
        <translation>KV 스냅숏</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="401"/>
        <source>on disk at most (0 = no limit)</source>
        <translation>디스크 사용 한도 (0 = 제한 없음)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="405"/>
        <source>KV snapshots on disk at most</source>
        <translation>디스크의 KV 스냅숏 사용 한도</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="419"/>
        <source>in RAM at most, for conversations you left (0 = none kept)</source>
        <translation>떠나온 대화용 RAM 최대치 (0 = 보관 안 함)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="423"/>
        <source>KV of conversations you left, in RAM at most</source>
        <translation>떠나온 대화의 KV, RAM 최대치</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="434"/>
        <source>Engine</source>
        <translation>엔진</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="439"/>
        <source>These reload the model: they wait for Apply at the bottom.</source>
        <translation>이 설정은 모델을 다시 불러오므로 아래의 적용을 누를 때까지 기다립니다.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="446"/>
        <source>backend</source>
        <translation>백엔드</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="447"/>
        <source>Backend</source>
        <translation>백엔드</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="448"/>
        <source>threads (0 = all)</source>
        <translation>스레드 (0 = 전부)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="451"/>
        <source>context (0 = trained)</source>
        <translation>컨텍스트 (0 = 학습 길이)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="454"/>
        <source>Context length</source>
        <translation>컨텍스트 길이</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="465"/>
        <location filename="../ui/SettingsDrawer.qml" line="473"/>
        <source>KV type</source>
        <translation>KV 형식</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="481"/>
        <location filename="../ui/SettingsDrawer.qml" line="503"/>
        <source>%1 — not for this model</source>
        <translation>%1 — 이 모델에는 맞지 않음</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="488"/>
        <source>V type (values)</source>
        <translation>V 형식 (Value)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="495"/>
        <source>V type</source>
        <translation>V 형식</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="497"/>
        <source>same as K</source>
        <translation>K와 같음</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="515"/>
        <source>Keys carry most of what a low-bit KV type loses: finer keys with 4-bit values (q8_0 K, q4_0r V) keep most of the quality at well under half of f16&apos;s memory. K and V typed apart run on the CPU backend.</source>
        <translation>낮은 비트 KV 형식이 잃는 것은 대부분 Key에서 생깁니다: Key를 더 정밀하게, Value를 4비트로 두면(q8_0 K, q4_0r V) f16 메모리의 절반에 훨씬 못 미치는 크기로 품질 대부분이 유지됩니다. K와 V를 따로 정하면 CPU 백엔드에서 실행됩니다.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="540"/>
        <source>when the context is full</source>
        <translation>컨텍스트가 찼을 때</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="546"/>
        <source>When the context is full</source>
        <translation>컨텍스트가 가득 차면</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="548"/>
        <source>drop the oldest turns</source>
        <translation>가장 오래된 차례 버리기</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="548"/>
        <source>shift out the oldest half</source>
        <translation>가장 오래된 절반 밀어내기</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="548"/>
        <source>stop and ask</source>
        <translation>멈추고 묻기</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="548"/>
        <source>keep the start and the latest (attention sinks)</source>
        <translation>시작 부분과 최신 내용 유지 (어텐션 싱크)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="611"/>
        <source>Cancel the engine changes</source>
        <translation>엔진 변경 취소</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="555"/>
        <source>Cost before applying: a full context of %1 tokens in %2 takes %3 of KV cache (%4 per token); the weights take %5.</source>
        <translation>적용 전 비용: %2 형식으로 %1 토큰의 컨텍스트를 채우면 KV 캐시 %3 (토큰당 %4), 가중치는 %5입니다.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="568"/>
        <source> at %1 tokens</source>
        <translation> (%1 토큰에서)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="603"/>
        <source>Apply</source>
        <translation>적용</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="170"/>
        <source>This model cannot use these settings: see the reason above.</source>
        <translation>이 모델은 이 설정을 쓸 수 없습니다. 위의 이유를 확인하세요.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="610"/>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="232"/>
        <source>Saved system prompt</source>
        <translation>저장된 시스템 프롬프트</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="235"/>
        <source>None (this conversation&apos;s own text)</source>
        <translation>없음 (이 대화의 자체 텍스트)</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="243"/>
        <source>Save as…</source>
        <translation>다른 이름으로 저장…</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="244"/>
        <source>Save the system prompt as a new saved prompt</source>
        <translation>시스템 프롬프트를 새 저장 프롬프트로 저장</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="249"/>
        <source>Edit…</source>
        <translation>편집…</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="250"/>
        <source>Edit the saved prompt</source>
        <translation>저장된 프롬프트 편집</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="256"/>
        <source>Delete…</source>
        <translation>삭제…</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="257"/>
        <source>Delete the saved prompt</source>
        <translation>저장된 프롬프트 삭제</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="270"/>
        <source>“%1” has changed since this conversation took it; the text below is this conversation&apos;s.</source>
        <translation>“%1”은(는) 이 대화가 가져온 뒤 바뀌었습니다. 아래 텍스트는 이 대화의 것입니다.</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="275"/>
        <source>Use the saved text</source>
        <translation>저장된 텍스트 사용</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="276"/>
        <source>Use the saved prompt&apos;s current text in this conversation</source>
        <translation>저장된 프롬프트의 현재 텍스트를 이 대화에 사용</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="300"/>
        <source>New conversations start with</source>
        <translation>새 대화의 시작 프롬프트</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="306"/>
        <source>System prompt of new conversations</source>
        <translation>새 대화의 시스템 프롬프트</translation>
    </message>
    <message>
        <location filename="../ui/SettingsDrawer.qml" line="309"/>
        <source>No system prompt</source>
        <translation>시스템 프롬프트 없음</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <location filename="../ui/Sidebar.qml" line="64"/>
        <location filename="../app/testing/chat_state_probe.cpp" line="142"/>
        <source>New chat</source>
        <translation>새 대화</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="70"/>
        <source>New chat (Ctrl+N)</source>
        <translation>새 대화 (Ctrl+N)</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="75"/>
        <source>Search (Ctrl+F)</source>
        <translation>검색 (Ctrl+F)</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="76"/>
        <source>Search conversations</source>
        <translation>대화 검색</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="97"/>
        <source>Conversations</source>
        <translation>대화</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="164"/>
        <source>Delete “%1”</source>
        <translation>“%1” 삭제</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="166"/>
        <source>Delete (Del) — can be undone for a few seconds</source>
        <translation>삭제 (Del) — 몇 초 동안 되돌릴 수 있음</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="205"/>
        <source>Deleted “%1”</source>
        <translation>“%1”을(를) 삭제했습니다</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="211"/>
        <source>Undo</source>
        <translation>실행 취소</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="212"/>
        <source>Undo delete (Ctrl+Z)</source>
        <translation>삭제 취소 (Ctrl+Z)</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="214"/>
        <source>Bring it back with its messages (Ctrl+Z)</source>
        <translation>메시지와 함께 되돌리기 (Ctrl+Z)</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="228"/>
        <source>Rename…  (F2)</source>
        <translation>이름 바꾸기…  (F2)</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="229"/>
        <source>Export as Markdown…</source>
        <translation>Markdown으로 내보내기…</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="230"/>
        <source>Export as JSON…</source>
        <translation>JSON으로 내보내기…</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="232"/>
        <source>Delete  (Del)</source>
        <translation>삭제  (Del)</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="242"/>
        <location filename="../ui/Sidebar.qml" line="304"/>
        <source>Export the conversation</source>
        <translation>대화 내보내기</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="262"/>
        <source>Export</source>
        <translation>내보내기</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="263"/>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="270"/>
        <source>Markdown, to read</source>
        <translation>Markdown, 읽기용</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="275"/>
        <source>JSON, every stored field</source>
        <translation>JSON, 저장된 모든 필드</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="280"/>
        <source>Save as</source>
        <translation>저장 형식</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="287"/>
        <source>File to write</source>
        <translation>저장할 파일</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="292"/>
        <source>Browse…</source>
        <translation>찾아보기…</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="306"/>
        <source>Choose</source>
        <translation>선택</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="307"/>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="307"/>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="320"/>
        <source>Rename conversation</source>
        <translation>대화 이름 바꾸기</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar.qml" line="336"/>
        <source>New name</source>
        <translation>새 이름</translation>
    </message>
</context>
<context>
    <name>SummaryJob</name>
    <message>
        <location filename="../app/documents/summary_job.cpp" line="87"/>
        <source>fits — sent whole</source>
        <translation>들어감 — 통째로 보냄</translation>
    </message>
    <message>
        <location filename="../app/documents/summary_job.cpp" line="96"/>
        <source>%1 chunks of about %2 tokens, %3 level of merging, about %4 tokens to process</source>
        <translation>약 %2 토큰씩 %1개 조각, 병합 %3단계, 처리할 토큰 약 %4개</translation>
    </message>
    <message>
        <location filename="../app/documents/summary_job.cpp" line="99"/>
        <source>%1 chunks of about %2 tokens, %3 levels of merging, about %4 tokens to process</source>
        <translation>약 %2 토큰씩 %1개 조각, 병합 %3단계, 처리할 토큰 약 %4개</translation>
    </message>
    <message>
        <location filename="../app/documents/summary_job.cpp" line="105"/>
        <source>, about %1 s at the measured speed</source>
        <translation>, 측정된 속도로 약 %1초</translation>
    </message>
    <message>
        <location filename="../app/documents/summary_job.cpp" line="315"/>
        <source>Summary job %1 is not stored.</source>
        <translation>요약 작업 %1이(가) 저장되어 있지 않습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/summary_job.cpp" line="319"/>
        <source>No model is loaded.</source>
        <translation>불러온 모델이 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/summary_job.cpp" line="193"/>
        <source>The job&apos;s document (%1) is not stored.</source>
        <translation>작업의 문서(%1)가 저장되어 있지 않습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/summary_job.cpp" line="203"/>
        <source>Summarize “%1”</source>
        <translation>“%1” 요약</translation>
    </message>
</context>
<context>
    <name>SummaryJobView</name>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="38"/>
        <source>Summarizing “%1”</source>
        <translation>“%1” 요약 중</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="39"/>
        <source>Summary of “%1” written</source>
        <translation>“%1” 요약 완료</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="40"/>
        <source>Summary of “%1” was interrupted</source>
        <translation>“%1” 요약이 중단되었습니다</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="41"/>
        <source>Summary of “%1” failed</source>
        <translation>“%1” 요약 실패</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="42"/>
        <source>Summary of “%1” cancelled</source>
        <translation>“%1” 요약 취소됨</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="46"/>
        <source>Cancelling…</source>
        <translation>취소하는 중…</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="46"/>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="52"/>
        <source>Resume</source>
        <translation>이어서 하기</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="56"/>
        <source>Another summary is being written: one job runs at a time.</source>
        <translation>다른 요약을 쓰는 중입니다. 작업은 한 번에 하나만 실행됩니다.</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="77"/>
        <source>%1 of about %2 summaries</source>
        <translation>약 %2개 중 %1개 요약</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="78"/>
        <source>about %1 left</source>
        <translation>약 %1 남음</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="79"/>
        <source>%1 elapsed</source>
        <translation>%1 지남</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="80"/>
        <source>%1 kept from before</source>
        <translation>이전 것 %1개 유지</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="81"/>
        <source>took %1</source>
        <translation>%1 걸림</translation>
    </message>
    <message>
        <location filename="../ui/SummaryJobView.qml" line="91"/>
        <source>Plan: %1</source>
        <translation>계획: %1</translation>
    </message>
</context>
<context>
    <name>SummaryWorker</name>
    <message>
        <location filename="../app/documents/summary_worker.cpp" line="51"/>
        <source>Summarizing failed: %1</source>
        <translation>요약에 실패했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/documents/summary_worker.cpp" line="55"/>
        <source>Summarizing failed: an unknown exception</source>
        <translation>요약에 실패했습니다: 알 수 없는 예외</translation>
    </message>
</context>
<context>
    <name>SystemPromptDialog</name>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="28"/>
        <source>Save as a new system prompt</source>
        <translation>새 시스템 프롬프트로 저장</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="29"/>
        <source>Edit the saved system prompt</source>
        <translation>저장된 시스템 프롬프트 편집</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="30"/>
        <source>Delete the saved system prompt</source>
        <translation>저장된 시스템 프롬프트 삭제</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="69"/>
        <source>Delete</source>
        <translation>삭제</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="69"/>
        <source>Save</source>
        <translation>저장</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="70"/>
        <source>Delete the saved prompt</source>
        <translation>저장된 프롬프트 삭제</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="70"/>
        <source>Save the prompt</source>
        <translation>프롬프트 저장</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="77"/>
        <location filename="../ui/SystemPromptDialog.qml" line="78"/>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/SystemPromptDialog.qml" line="98"/>
        <source>Delete “%1”? The %n conversation(s) that use it keep their text.</source>
        <translation>
            <numerusform>“%1”을(를) 삭제할까요? 이 프롬프트를 쓰는 대화 %n개는 텍스트를 그대로 유지합니다.</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="99"/>
        <source>Delete “%1”? No conversation uses it.</source>
        <translation>“%1”을(를) 삭제할까요? 이 프롬프트를 쓰는 대화는 없습니다.</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="103"/>
        <source>Name</source>
        <translation>이름</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="109"/>
        <source>Prompt name</source>
        <translation>프롬프트 이름</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="110"/>
        <source>For example: Code reviewer</source>
        <translation>예: 코드 리뷰어</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="126"/>
        <source>Text</source>
        <translation>텍스트</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="134"/>
        <source>Prompt text</source>
        <translation>프롬프트 텍스트</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="136"/>
        <source>Instructions the model reads before every conversation that uses this prompt</source>
        <translation>이 프롬프트를 쓰는 모든 대화에서 모델이 먼저 읽는 지시</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="150"/>
        <source>Apply the new text to</source>
        <translation>새 텍스트를 적용할 곳</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/SystemPromptDialog.qml" line="159"/>
        <source>Every conversation that uses it (%n)</source>
        <translation>
            <numerusform>이 프롬프트를 쓰는 모든 대화 (%n개)</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="168"/>
        <source>Only this conversation</source>
        <translation>이 대화만</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="168"/>
        <source>Only this conversation (it then uses this prompt)</source>
        <translation>이 대화만 (이후 이 프롬프트를 사용)</translation>
    </message>
    <message>
        <location filename="../ui/SystemPromptDialog.qml" line="177"/>
        <source>No conversation: they keep their text</source>
        <translation>적용 안 함: 대화들은 텍스트를 유지</translation>
    </message>
</context>
<context>
    <name>ToolCallBlocks</name>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="29"/>
        <source>waiting for your consent</source>
        <translation>허용을 기다리는 중</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="30"/>
        <source>running…</source>
        <translation>실행 중…</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="32"/>
        <source>ran</source>
        <translation>실행됨</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="33"/>
        <source>ran in %1 ms</source>
        <translation>%1 ms 만에 실행됨</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="34"/>
        <source>ran in %1 s</source>
        <translation>%1초 만에 실행됨</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="35"/>
        <source>denied</source>
        <translation>거부됨</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="36"/>
        <source>failed</source>
        <translation>실패</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="37"/>
        <source>stopped before it ran</source>
        <translation>실행 전에 멈춤</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="38"/>
        <source>waiting</source>
        <translation>대기 중</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="38"/>
        <source>not run</source>
        <translation>실행 안 됨</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="44"/>
        <source>You denied this call: it did not run, and the model was told so.</source>
        <translation>이 호출을 거부했습니다: 실행되지 않았고, 모델에게 그렇게 알렸습니다.</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="45"/>
        <source>The call failed; the model read what went wrong:</source>
        <translation>호출이 실패했습니다. 모델은 무엇이 잘못됐는지 읽었습니다:</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="46"/>
        <source>Stopped (Esc) before it ran; the model was told so.</source>
        <translation>실행 전에 멈췄습니다(Esc). 모델에게 그렇게 알렸습니다.</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="102"/>
        <source>Tool call: %1 — %2</source>
        <translation>도구 호출: %1 — %2</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="109"/>
        <source>Fold the call of %1</source>
        <translation>%1 호출 접기</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="109"/>
        <source>Show the call of %1</source>
        <translation>%1 호출 보기</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="112"/>
        <source>%1 on the tool server %2</source>
        <translation>도구 서버 %2의 %1</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="117"/>
        <source>Arguments</source>
        <translation>인수</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="143"/>
        <source>Run this call?</source>
        <translation>이 호출을 실행할까요?</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="148"/>
        <source>Allow</source>
        <translation>허용</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="150"/>
        <source>Allow this call of %1 once</source>
        <translation>%1의 이번 호출만 허용</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="156"/>
        <source>Always allow this tool</source>
        <translation>이 도구는 항상 허용</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="157"/>
        <source>Always allow %1 (revocable in Settings → Tools)</source>
        <translation>%1 항상 허용 (설정 → 도구에서 취소 가능)</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="163"/>
        <source>Deny</source>
        <translation>거부</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="164"/>
        <source>Deny this call: the model is told it was refused</source>
        <translation>이 호출 거부: 모델에게 거부되었다고 알립니다</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="179"/>
        <source>Result</source>
        <translation>결과</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="203"/>
        <source>Cut: %1. </source>
        <translation>잘림: %1. </translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="204"/>
        <source>%1 tokens · %2 of KV cache</source>
        <translation>%1 토큰 · KV 캐시 %2</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="221"/>
        <source>The model made %1 tool calls in a row (the limit set in Settings → Tools). Let it go on?</source>
        <translation>모델이 도구를 연속으로 %1번 호출했습니다(설정 → 도구에서 정한 한도). 계속하게 할까요?</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="226"/>
        <source>Go on</source>
        <translation>계속</translation>
    </message>
    <message>
        <location filename="../ui/ToolCallBlocks.qml" line="233"/>
        <source>Stop here</source>
        <translation>여기서 멈추기</translation>
    </message>
</context>
<context>
    <name>ToolCosts</name>
    <message>
        <location filename="../ui/memory/ToolCosts.qml" line="21"/>
        <source>Tools in the context</source>
        <translation>컨텍스트 속 도구</translation>
    </message>
    <message>
        <location filename="../ui/memory/ToolCosts.qml" line="22"/>
        <source>A conversation that offers tools carries their definitions (names, descriptions, argument schemas) in its prompt, and every call&apos;s result is read by the model: both sit in the KV cache like any text. A long result is cut at the limit set in Settings → Tools, and to what the context can still hold.</source>
        <translation>도구를 제공하는 대화는 프롬프트에 그 정의(이름, 설명, 인수 스키마)를 담고, 모델은 모든 호출의 결과를 읽습니다: 둘 다 다른 텍스트처럼 KV 캐시에 자리합니다. 긴 결과는 설정 → 도구에서 정한 한도와, 컨텍스트에 아직 들어갈 수 있는 만큼으로 잘립니다.</translation>
    </message>
    <message>
        <location filename="../ui/memory/ToolCosts.qml" line="30"/>
        <source>Definitions: %1 tokens · %2</source>
        <translation>정의: %1 토큰 · %2</translation>
    </message>
    <message>
        <location filename="../ui/memory/ToolCosts.qml" line="31"/>
        <source>Definitions: counted with the next reply</source>
        <translation>정의: 다음 답변 때 셉니다</translation>
    </message>
    <message>
        <location filename="../ui/memory/ToolCosts.qml" line="43"/>
        <source>Result of %1: %2 tokens · %3</source>
        <translation>%1의 결과: %2 토큰 · %3</translation>
    </message>
    <message>
        <location filename="../ui/memory/ToolCosts.qml" line="44"/>
        <source> (cut: %1)</source>
        <translation> (잘림: %1)</translation>
    </message>
    <message>
        <location filename="../ui/memory/ToolCosts.qml" line="51"/>
        <source>All results: %1 tokens · %2</source>
        <translation>모든 결과: %1 토큰 · %2</translation>
    </message>
    <message>
        <location filename="../ui/memory/ToolCosts.qml" line="60"/>
        <source>A tool result of up to %1 tokens would not fit: %2 tokens of the context are free. A longer result will be cut to fit, and the cut said.</source>
        <translation>최대 %1 토큰의 도구 결과는 들어가지 않습니다: 컨텍스트에 남은 자리는 %2 토큰입니다. 더 긴 결과는 들어가도록 잘리며, 잘렸다고 알립니다.</translation>
    </message>
</context>
<context>
    <name>ToolSteps</name>
    <message>
        <location filename="../app/tools/tool_steps.cpp" line="122"/>
        <source>denied by the user: not run</source>
        <translation>사용자가 거부함: 실행 안 됨</translation>
    </message>
    <message>
        <location filename="../app/tools/tool_steps.cpp" line="124"/>
        <source>stopped before it ran</source>
        <translation>실행 전에 멈춤</translation>
    </message>
    <message>
        <location filename="../app/tools/tool_steps.cpp" line="125"/>
        <source>failed</source>
        <translation>실패</translation>
    </message>
    <message>
        <location filename="../app/tools/tool_steps.cpp" line="126"/>
        <source>ran</source>
        <translation>실행됨</translation>
    </message>
    <message>
        <location filename="../app/tools/tool_steps.cpp" line="127"/>
        <source>not run (the reply ended first)</source>
        <translation>실행 안 됨 (답변이 먼저 끝남)</translation>
    </message>
    <message>
        <location filename="../app/tools/tool_steps.cpp" line="140"/>
        <source>Tool call: `%1` (%2)</source>
        <translation>도구 호출: `%1` (%2)</translation>
    </message>
    <message>
        <location filename="../app/tools/tool_steps.cpp" line="146"/>
        <source>Result:</source>
        <translation>결과:</translation>
    </message>
    <message>
        <location filename="../app/tools/tool_steps.cpp" line="153"/>
        <source>The result was cut: %1.</source>
        <translation>결과가 잘렸습니다: %1.</translation>
    </message>
</context>
<context>
    <name>ToolsButton</name>
    <message>
        <location filename="../ui/ToolsButton.qml" line="17"/>
        <source>Tools: %1</source>
        <translation>도구: %1</translation>
    </message>
    <message>
        <location filename="../ui/ToolsButton.qml" line="17"/>
        <source>Tools</source>
        <translation>도구</translation>
    </message>
    <message>
        <location filename="../ui/ToolsButton.qml" line="25"/>
        <source>The tools this conversation offers the model (Ctrl+T)</source>
        <translation>이 대화가 모델에게 제공하는 도구 (Ctrl+T)</translation>
    </message>
    <message>
        <location filename="../ui/ToolsButton.qml" line="60"/>
        <source>Tools this conversation offers</source>
        <translation>이 대화가 제공하는 도구</translation>
    </message>
    <message>
        <location filename="../ui/ToolsButton.qml" line="68"/>
        <source>No tool servers yet: add one in Settings → Tools (its mcp.json).</source>
        <translation>아직 도구 서버가 없습니다: 설정 → 도구(mcp.json)에서 추가하세요.</translation>
    </message>
    <message>
        <location filename="../ui/ToolsButton.qml" line="69"/>
        <source>Each call is shown in the reply and runs only once you allow it. Their definitions take room in the context (the memory panel says how much).</source>
        <translation>각 호출은 답변에 표시되고, 허용해야만 실행됩니다. 도구 정의는 컨텍스트에서 자리를 차지합니다(메모리 패널이 얼마인지 알려 줍니다).</translation>
    </message>
    <message>
        <location filename="../ui/ToolsButton.qml" line="80"/>
        <source>%1 (%2 tools)</source>
        <translation>%1 (도구 %2개)</translation>
    </message>
    <message>
        <location filename="../ui/ToolsButton.qml" line="81"/>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <location filename="../ui/ToolsButton.qml" line="91"/>
        <source>The model must call a tool</source>
        <translation>모델이 반드시 도구를 호출</translation>
    </message>
    <message>
        <location filename="../ui/ToolsButton.qml" line="96"/>
        <source>Its first reply to each message is a call (small models rarely call on their own); after the results it answers freely.</source>
        <translation>각 메시지에 대한 첫 답변은 호출입니다(작은 모델은 스스로 호출하는 일이 드뭅니다). 결과를 읽은 뒤에는 자유롭게 답합니다.</translation>
    </message>
    <message>
        <location filename="../ui/ToolsButton.qml" line="101"/>
        <source>Settings → Tools…</source>
        <translation>설정 → 도구…</translation>
    </message>
</context>
<context>
    <name>ToolsSettings</name>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="23"/>
        <source>Tools</source>
        <translation>도구</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="29"/>
        <source>Tool servers (MCP) let the model read files, search or run what they offer. Every call is shown in the reply and runs only once you allow it. Servers are kept in %1.</source>
        <translation>도구 서버(MCP)로 모델이 파일을 읽고, 검색하고, 서버가 제공하는 것을 실행할 수 있습니다. 모든 호출은 답변에 표시되고 허용해야만 실행됩니다. 서버 목록은 %1에 저장됩니다.</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="62"/>
        <source>Enable the tool server %1</source>
        <translation>도구 서버 %1 사용</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="76"/>
        <source>ready · %1 tools</source>
        <translation>준비됨 · 도구 %1개</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="77"/>
        <source>failed</source>
        <translation>실패</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="78"/>
        <source>starting…</source>
        <translation>시작하는 중…</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="79"/>
        <source>off</source>
        <translation>꺼짐</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="79"/>
        <source>stopped</source>
        <translation>멈춤</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="101"/>
        <source>Hide its tools and log</source>
        <translation>도구와 로그 숨기기</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="101"/>
        <source>Its tools and log</source>
        <translation>도구와 로그</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="105"/>
        <source>Remove</source>
        <translation>제거</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="106"/>
        <source>Remove the tool server %1</source>
        <translation>도구 서버 %1 제거</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="123"/>
        <source>%1 (not offered: see below)</source>
        <translation>%1 (제공 안 함: 아래 참조)</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="127"/>
        <source>Revoke</source>
        <translation>취소</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="128"/>
        <source>Ask again before %1 runs</source>
        <translation>%1 실행 전에 다시 묻기</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="136"/>
        <source>Runs without asking (Always allow)</source>
        <translation>묻지 않고 실행 (항상 허용)</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="160"/>
        <source>Its stderr (the last lines)</source>
        <translation>stderr (마지막 줄들)</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="173"/>
        <source>(nothing)</source>
        <translation>(없음)</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="186"/>
        <source>Not offered: %1</source>
        <translation>제공 안 함: %1</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="191"/>
        <source>Add a server</source>
        <translation>서버 추가</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="195"/>
        <source>name</source>
        <translation>이름</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="198"/>
        <source>The new server&apos;s name</source>
        <translation>새 서버의 이름</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="199"/>
        <source>command</source>
        <translation>명령</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="202"/>
        <source>The command that starts it, or its URL (http://127.0.0.1:PORT/mcp)</source>
        <translation>서버를 시작하는 명령, 또는 그 URL (http://127.0.0.1:PORT/mcp)</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="203"/>
        <source>arguments</source>
        <translation>인수</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="206"/>
        <source>as on a command line</source>
        <translation>명령줄에서처럼</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="207"/>
        <source>Its arguments, as on a command line</source>
        <translation>명령줄에서처럼 적은 인수</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="208"/>
        <source>environment</source>
        <translation>환경 변수</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="209"/>
        <source>KEY=value, one per line</source>
        <translation>한 줄에 하나씩 KEY=value</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="215"/>
        <source>Environment variables it gets (only these, and HOME, PATH, USER…)</source>
        <translation>서버가 받는 환경 변수 (이것들과 HOME, PATH, USER… 만)</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="219"/>
        <source>Add and start</source>
        <translation>추가하고 시작</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="231"/>
        <source>calls in a row before asking again</source>
        <translation>다시 묻기 전 연속 호출 수</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="234"/>
        <source>Tool calls in a row before asking again</source>
        <translation>다시 묻기 전까지의 연속 도구 호출 수</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="235"/>
        <source>tokens kept of a result</source>
        <translation>결과에서 유지할 토큰 수</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="239"/>
        <source>Tokens kept of a tool&apos;s result (a longer one is cut, and the cut said)</source>
        <translation>도구 결과에서 유지할 토큰 수 (더 길면 잘리고, 잘렸다고 알립니다)</translation>
    </message>
    <message>
        <location filename="../ui/ToolsSettings.qml" line="242"/>
        <source>Reload mcp.json</source>
        <translation>mcp.json 다시 읽기</translation>
    </message>
</context>
<context>
    <name>Welcome</name>
    <message>
        <location filename="../ui/Welcome.qml" line="85"/>
        <source>Welcome to kvchat</source>
        <translation>kvchat에 오신 것을 환영합니다</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="58"/>
        <source>kvchat runs a language model on this computer: nothing you type leaves it. While the model answers, the memory panel on the right shows where the memory goes.</source>
        <translation>kvchat은 이 컴퓨터에서 언어 모델을 실행합니다. 입력한 내용은 밖으로 나가지 않습니다. 모델이 답하는 동안 오른쪽 메모리 패널이 메모리가 어디에 쓰이는지 보여 줍니다.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="39"/>
        <source>A model is being loaded; its name appears at the top left when it is ready.</source>
        <translation>모델을 불러오는 중입니다. 준비되면 왼쪽 위에 이름이 나타납니다.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="46"/>
        <source>%1 is loaded: type a message and press Enter.</source>
        <translation>%1 모델을 불러왔습니다. 메시지를 입력하고 Enter를 누르세요.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="41"/>
        <source>A small demo model is loaded. Trained on the King James Bible, it continues verses: type “Genesis 1”, then Shift+Enter, “1 In the beginning” and Enter. It does not follow instructions: it cannot answer questions or summarize (asked to, it writes more scripture). For that, download a chat model below.</source>
        <translation>작은 데모 모델이 불러와져 있습니다. 킹 제임스 성경으로 학습해 구절을 이어 씁니다. “Genesis 1”을 입력하고 Shift+Enter, “1 In the beginning”을 입력한 뒤 Enter를 눌러 보세요. 지시를 따르지는 못해서 질문에 답하거나 요약할 수 없습니다(시키면 성경 구절을 더 씁니다). 그런 일에는 아래에서 채팅 모델을 내려받으세요.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="43"/>
        <source>No model is loaded yet: download one below, or open one with the model button at the top left (Ctrl+O): it lists your models, the recent ones and the demo model.</source>
        <translation>아직 불러온 모델이 없습니다. 아래에서 모델을 내려받거나, 왼쪽 위의 모델 버튼(Ctrl+O)으로 여세요. 내 모델, 최근 모델, 데모 모델이 그곳에 있습니다.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="45"/>
        <source>%1 is loaded. Its file has no chat template: it continues text rather than following instructions, so it will not answer questions or summarize. A chat model (below) does.</source>
        <translation>%1 모델을 불러왔습니다. 이 파일에는 채팅 템플릿이 없어 지시를 따르기보다 글을 이어 쓰므로, 질문에 답하거나 요약하지 못합니다. 아래의 채팅 모델은 할 수 있습니다.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="49"/>
        <source>The catalog of models could not be read: open a GGUF file you have with the model button at the top left (Ctrl+O).</source>
        <translation>모델 카탈로그를 읽을 수 없습니다. 가지고 있는 GGUF 파일을 왼쪽 위의 모델 버튼(Ctrl+O)으로 여세요.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="51"/>
        <source>No chat model of the catalog fits the free memory now (%1). Close other programs, or open a smaller GGUF file with the model button at the top left (Ctrl+O).</source>
        <translation>카탈로그의 채팅 모델 중 지금의 여유 메모리(%1)에 들어가는 것이 없습니다. 다른 프로그램을 닫거나, 더 작은 GGUF 파일을 왼쪽 위의 모델 버튼(Ctrl+O)으로 여세요.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="53"/>
        <source>The Hub cannot be reached now, so nothing can be downloaded: open a GGUF file you have with the model button at the top left (Ctrl+O). These chat models fit this computer once it is online:</source>
        <translation>지금은 Hub에 연결할 수 없어 아무것도 내려받을 수 없습니다. 가지고 있는 GGUF 파일을 왼쪽 위의 모델 버튼(Ctrl+O)으로 여세요. 온라인이 되면 이 컴퓨터에 맞는 채팅 모델은 다음과 같습니다:</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="54"/>
        <source>Chat models that fit this computer, smallest first: one click downloads the file (its SHA-256 checked) and opens it. The download goes on if this closes; the Models page (Ctrl+Shift+M) shows it and lists more.</source>
        <translation>이 컴퓨터에 들어가는 채팅 모델입니다(작은 것부터). 한 번 누르면 파일을 내려받아(SHA-256 확인) 엽니다. 이 창을 닫아도 다운로드는 계속되며, 모델 페이지(Ctrl+Shift+M)에서 진행 상황과 더 많은 모델을 볼 수 있습니다.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="57"/>
        <source>kvchat runs a language model on this computer: nothing you type leaves it. While the model answers, the memory panel (the Memory button at the top right, or Ctrl+M) shows where the memory goes.</source>
        <translation>kvchat은 이 컴퓨터에서 언어 모델을 실행합니다. 입력한 내용은 밖으로 나가지 않습니다. 모델이 답하는 동안 메모리 패널(오른쪽 위 메모리 버튼 또는 Ctrl+M)이 메모리가 어디에 쓰이는지 보여 줍니다.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="61"/>
        <source>Other models: the model button at the top left (Ctrl+O) lists yours with what each takes in memory, and opens any GGUF file; or drop one on the window. GGUF files of Llama, Mistral, Qwen, Gemma and Phi models are published on Hugging Face; Q4_K_M files are a good first choice on a CPU.</source>
        <translation>다른 모델: 왼쪽 위의 모델 버튼(Ctrl+O)은 가진 모델을 각각 차지할 메모리와 함께 보여 주고, 어떤 GGUF 파일이든 엽니다. 창에 파일을 끌어다 놓아도 됩니다. Llama, Mistral, Qwen, Gemma, Phi 모델의 GGUF 파일은 Hugging Face에 공개되어 있으며, CPU에서는 Q4_K_M 파일이 처음 고르기에 좋습니다.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="62"/>
        <source>The memory panel: the weights (fixed, shared), the KV cache (the keys and values of every token, growing as the conversation lengthens), the formula behind its size, the blocks it grows in, what other KV types would cost, and how many conversations of this length would fit. Each section has a “?” that explains it.</source>
        <translation>메모리 패널: 가중치(크기 고정, 공유), KV 캐시(모든 토큰의 Key와 Value, 대화가 길어질수록 늘어남), 그 크기를 정하는 식, 캐시가 늘어나는 블록, 다른 KV 형식의 비용, 이 길이의 대화가 몇 개 들어가는지를 보여 줍니다. 각 부분의 “?”를 누르면 설명이 나옵니다.</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="95"/>
        <source>Recommended for this computer</source>
        <translation>이 컴퓨터에 추천하는 모델</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="113"/>
        <source>Start</source>
        <translation>시작하기</translation>
    </message>
    <message>
        <location filename="../ui/Welcome.qml" line="118"/>
        <source>Close the welcome (Esc)</source>
        <translation>환영 화면 닫기 (Esc)</translation>
    </message>
</context>
<context>
    <name>WelcomeRecommendation</name>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="30"/>
        <source>%1 (%2, %3)</source>
        <translation>%1 (%2, %3)</translation>
    </message>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="37"/>
        <source>%1 download · %2</source>
        <translation>다운로드 %1 · %2</translation>
    </message>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="46"/>
        <source>Downloading %1</source>
        <translation>%1 내려받는 중</translation>
    </message>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="55"/>
        <source>Looking up the file on the Hub…</source>
        <translation>Hub에서 파일을 찾는 중…</translation>
    </message>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="57"/>
        <source>Downloading: %1 of %2</source>
        <translation>내려받는 중: %2 중 %1</translation>
    </message>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="58"/>
        <source>Checking the SHA-256…</source>
        <translation>SHA-256 확인 중…</translation>
    </message>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="59"/>
        <source>Paused: the button resumes it.</source>
        <translation>일시 중지됨: 버튼을 누르면 이어서 받습니다.</translation>
    </message>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="60"/>
        <source>The download failed.</source>
        <translation>다운로드에 실패했습니다.</translation>
    </message>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="61"/>
        <source>Downloaded and verified: it is opened.</source>
        <translation>내려받아 확인했습니다. 모델을 엽니다.</translation>
    </message>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="69"/>
        <source>Open</source>
        <translation>열기</translation>
    </message>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="70"/>
        <source>Resume and open</source>
        <translation>이어 받고 열기</translation>
    </message>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="71"/>
        <source>Try again</source>
        <translation>다시 시도</translation>
    </message>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="72"/>
        <source>Download and open</source>
        <translation>내려받고 열기</translation>
    </message>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="75"/>
        <source>Already downloaded: open it now.</source>
        <translation>이미 내려받았습니다. 지금 엽니다.</translation>
    </message>
    <message>
        <location filename="../ui/WelcomeRecommendation.qml" line="76"/>
        <source>Download it (%1) from the Hugging Face Hub into the models folder, then open it.</source>
        <translation>Hugging Face Hub에서 모델 폴더로 내려받은(%1) 뒤 엽니다.</translation>
    </message>
</context>
<context>
    <name>kvchat::app::ChatController</name>
    <message>
        <location filename="../app/chat/chat_controller_status.cpp" line="51"/>
        <source>Chat format</source>
        <translation>채팅 형식</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_status.cpp" line="52"/>
        <source>Backend</source>
        <translation>백엔드</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_status.cpp" line="53"/>
        <source>Snapshot</source>
        <translation>스냅숏</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_status.cpp" line="54"/>
        <source>KV quality</source>
        <translation>KV 품질</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_status.cpp" line="55"/>
        <source>KV type</source>
        <translation>KV 형식</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_status.cpp" line="56"/>
        <source>KV memory</source>
        <translation>KV 메모리</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_status.cpp" line="68"/>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_status.cpp" line="69"/>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="248"/>
        <source>Oldest turns dropped to make room: %1 tokens (%2 → %3 in context).</source>
        <translation>공간을 만들려고 가장 오래된 차례를 버렸습니다: %1 토큰 (컨텍스트 %2 → %3).</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="89"/>
        <source>The model ended its reply without writing anything</source>
        <translation>모델이 아무것도 쓰지 않고 답변을 끝냈습니다</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="215"/>
        <source>saved</source>
        <translation>저장됨</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="215"/>
        <source>everything in the window is stored again</source>
        <translation>창의 모든 내용이 다시 저장되었습니다</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="223"/>
        <source>Saving failed: %1. Nothing is lost: what is not saved stays in the window, marked “not saved”, and is saved with the next change.</source>
        <translation>저장 실패: %1. 잃은 것은 없습니다. 저장되지 않은 내용은 “저장되지 않음” 표시와 함께 창에 남아 있고, 다음 변경 때 저장됩니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="250"/>
        <source>%1 message(s) of this conversation are not saved yet (%2). Free disk space and try again: leaving the conversation now would lose them.</source>
        <translation>이 대화의 메시지 %1개가 아직 저장되지 않았습니다 (%2). 디스크 공간을 확보한 뒤 다시 시도하세요. 지금 대화를 떠나면 그 메시지를 잃습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="269"/>
        <source>The system prompt was not saved: %1</source>
        <translation>시스템 프롬프트를 저장하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="383"/>
        <source>This conversation&apos;s messages are still being read (they are long): nothing was sent or changed; try again in a moment.</source>
        <translation>이 대화의 메시지를 아직 읽는 중입니다(메시지가 깁니다): 아무것도 보내거나 바꾸지 않았습니다. 잠시 후 다시 시도하세요.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="45"/>
        <source>The conversation comes to %1 tokens; the context holds %2.</source>
        <translation>대화는 %1 토큰인데 컨텍스트에는 %2 토큰이 들어갑니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="38"/>
        <source>settings</source>
        <translation>설정</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="72"/>
        <source>chat</source>
        <translation>채팅</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="92"/>
        <source>Retry</source>
        <translation>다시 시도</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="93"/>
        <source>%1 could not be loaded: %2</source>
        <translation>%1을(를) 불러오지 못했습니다: %2</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="95"/>
        <source>%1 is still loaded.</source>
        <translation>%1은(는) 아직 불러와져 있습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="96"/>
        <source>Keep %1</source>
        <translation>%1 유지</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_conversation_model.cpp" line="86"/>
        <source>This conversation</source>
        <translation>이 대화</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_conversation_model.cpp" line="86"/>
        <source>“%1”</source>
        <translation>“%1”</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_conversation_model.cpp" line="91"/>
        <source>%1 was written with %2. Its next message goes to %3, which reads the conversation again.</source>
        <translation>%1 대화는 %2 모델로 작성되었습니다. 다음 메시지는 %3 모델로 가며, 대화를 처음부터 다시 읽습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_conversation_model.cpp" line="95"/>
        <location filename="../app/chat/chat_controller_models.cpp" line="101"/>
        <source>Open %1</source>
        <translation>%1 열기</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_conversation_model.cpp" line="99"/>
        <source>%1 was written with %2, which is no longer at %3. Its next message goes to %4 unless you open that model again.</source>
        <translation>%1 대화는 %2 모델로 작성되었지만 그 파일이 더 이상 %3에 없습니다. 그 모델을 다시 열지 않으면 다음 메시지는 %4 모델로 갑니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_conversation_model.cpp" line="103"/>
        <source>Open a model file…</source>
        <translation>모델 파일 열기…</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_conversation_model.cpp" line="104"/>
        <source>Find it on the Models page</source>
        <translation>모델 페이지에서 찾기</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="109"/>
        <source>Demo model</source>
        <translation>데모 모델</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="112"/>
        <source>Settings for %1…</source>
        <translation>%1 설정…</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="183"/>
        <source>No reply was written: %1 Your message is kept.</source>
        <translation>답변을 쓰지 않았습니다: %1 메시지는 그대로 남아 있습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="184"/>
        <source>Try again</source>
        <translation>다시 시도</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="214"/>
        <location filename="../app/chat/chat_controller_models.cpp" line="310"/>
        <source>Summarize and continue</source>
        <translation>요약하고 계속</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="217"/>
        <source>Drop oldest turns and retry</source>
        <translation>가장 오래된 차례를 버리고 다시 시도</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="219"/>
        <source>Settings…</source>
        <translation>설정…</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="244"/>
        <source>Oldest turns dropped to make room: %1 tokens (%2 → %3 in context, %4 evaluated again).</source>
        <translation>공간을 만들려고 가장 오래된 차례를 버렸습니다: %1 토큰 (컨텍스트 %2 → %3, %4 다시 계산).</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="241"/>
        <source>Oldest tokens shifted out to make room: %1 tokens (%2 → %3 in context).</source>
        <translation>공간을 만들려고 가장 오래된 토큰을 밀어냈습니다: %1 토큰 (컨텍스트 %2 → %3).</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="178"/>
        <source>There is no room in the context for a reply (%1). Your message is kept.</source>
        <translation>컨텍스트에 답변할 자리가 없습니다 (%1). 메시지는 보존되었습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="199"/>
        <source>This reply cannot be continued (%1): it is all the context holds and there is no earlier turn to drop. Start a new chat, summarize and continue, or give this model a longer context in Settings.</source>
        <translation>이 답변은 이어 쓸 수 없습니다 (%1): 컨텍스트가 담을 수 있는 전부이며 삭제할 이전 턴이 없습니다. 새 대화를 시작하거나, 요약하고 계속하거나, 설정에서 이 모델의 컨텍스트를 늘리세요.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="211"/>
        <source>%1 Next message: %2.</source>
        <translation>%1 다음 메시지: %2.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="236"/>
        <source>The oldest tokens after the start left to make room: %1 tokens (%2 → %3 in context; the first tokens and the system prompt stay).</source>
        <translation>공간을 만들려고 시작 뒤의 가장 오래된 토큰이 빠졌습니다: %1 토큰 (컨텍스트 %2 → %3, 첫 토큰들과 시스템 프롬프트는 남습니다).</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="262"/>
        <source>Summarizing this conversation to continue in a new one… (Esc stops)</source>
        <translation>새 대화에서 이어 가려고 이 대화를 요약하는 중… (Esc로 중지)</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="289"/>
        <source>A summary of the conversation so far:</source>
        <translation>지금까지의 대화 요약:</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="297"/>
        <source>summary</source>
        <translation>요약</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="298"/>
        <source>“%1” continues here; its summary is this conversation&apos;s system prompt.</source>
        <translation>“%1”이(가) 여기서 이어집니다. 그 요약이 이 대화의 시스템 프롬프트입니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="301"/>
        <source>Continued: %1</source>
        <translation>이어서: %1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_models.cpp" line="308"/>
        <source>The conversation was not summarized: %1</source>
        <translation>대화를 요약하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_conversations.cpp" line="54"/>
        <source>The conversation is deleted but its KV snapshot %1 could not be removed.</source>
        <translation>대화는 삭제했지만 KV 스냅숏 %1을(를) 지우지 못했습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="391"/>
        <source>The model is still loading: your message is kept in the box; send it when it is ready.</source>
        <translation>모델을 아직 불러오는 중입니다. 메시지는 입력란에 그대로 있으니 준비되면 보내세요.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="397"/>
        <source>No model is loaded: your message is kept in the box. Open a GGUF model (“Open model…”, Ctrl+O, or drop one on the window), or pick the demo model under “Recent”, then send it.</source>
        <translation>불러온 모델이 없습니다. 메시지는 입력란에 그대로 있습니다. GGUF 모델을 열거나(“모델 열기…”, Ctrl+O, 또는 창에 끌어다 놓기) “최근”에서 데모 모델을 고른 뒤 보내세요.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_replies.cpp" line="39"/>
        <location filename="../app/chat/chat_replies.cpp" line="48"/>
        <source>Cannot regenerate now: %1</source>
        <translation>지금은 다시 생성할 수 없습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_replies.cpp" line="71"/>
        <location filename="../app/chat/chat_replies.cpp" line="77"/>
        <source>Cannot show that version: %1</source>
        <translation>그 버전을 표시할 수 없습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_replies.cpp" line="101"/>
        <source>The conversation&apos;s title was not updated: %1</source>
        <translation>대화 제목을 바꾸지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_replies.cpp" line="191"/>
        <source>%1: the version before it is shown again.</source>
        <translation>%1: 이전 버전을 다시 표시합니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_reply_flow.cpp" line="77"/>
        <source>Cannot edit now: %1</source>
        <translation>지금은 고칠 수 없습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_reply_flow.cpp" line="82"/>
        <source>The edit was not saved: %1</source>
        <translation>고친 내용을 저장하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_reply_flow.cpp" line="149"/>
        <source>It was stopped before its first word.</source>
        <translation>첫 단어를 쓰기 전에 중지되었습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_reply_flow.cpp" line="150"/>
        <source>The model ended its reply without writing anything.</source>
        <translation>모델이 아무것도 쓰지 않고 답변을 끝냈습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_reply_flow.cpp" line="155"/>
        <source>The reply was cut where the context ran out of room (%1).</source>
        <translation>컨텍스트에 자리가 없어 답변이 잘렸습니다 (%1).</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_status.cpp" line="87"/>
        <source>Backend: %1</source>
        <translation>백엔드: %1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="187"/>
        <location filename="../app/chat/chat_controller.cpp" line="302"/>
        <location filename="../app/chat/chat_controller_conversation_model.cpp" line="106"/>
        <location filename="../app/chat/chat_controller_models.cpp" line="213"/>
        <location filename="../app/chat/chat_controller_models.cpp" line="309"/>
        <source>New chat</source>
        <translation>새 대화</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="65"/>
        <source>The database %1 was damaged and could not be read. It was moved aside, nothing deleted, to %2; a fresh database was created.</source>
        <translation>데이터베이스 %1이(가) 손상되어 읽을 수 없었습니다. 지우지 않고 %2(으)로 옮겨 두었으며, 새 데이터베이스를 만들었습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="72"/>
        <source>Replies cut short by the last exit could not be marked interrupted.</source>
        <translation>지난 종료로 끊긴 답변을 중단됨으로 표시하지 못했습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_conversations.cpp" line="18"/>
        <source>A summary is being written into this conversation: cancel it first.</source>
        <translation>이 대화에 요약을 쓰는 중입니다. 먼저 취소하세요.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="406"/>
        <source>The context is full and your last message has no reply: choose an action in the banner first (or close it to send anyway). This message is kept in the box.</source>
        <translation>컨텍스트가 가득 차서 마지막 메시지에 답변이 없습니다. 먼저 배너에서 동작을 선택하세요 (그래도 보내려면 배너를 닫으세요). 이 메시지는 입력란에 남아 있습니다.</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_tools.cpp" line="95"/>
        <source>The conversation&apos;s tools were not saved: %1</source>
        <translation>대화의 도구 설정이 저장되지 않았습니다: %1</translation>
    </message>
</context>
<context>
    <name>kvchat::app::ConversationListController</name>
    <message>
        <location filename="../app/conversations/conversation_list_controller.cpp" line="106"/>
        <source>The conversation was not deleted: %1</source>
        <translation>대화를 삭제하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/conversations/conversation_list_controller.cpp" line="138"/>
        <source>export</source>
        <translation>내보내기</translation>
    </message>
    <message>
        <location filename="../app/conversations/conversation_list_controller.cpp" line="138"/>
        <source>“%1” written to %2</source>
        <translation>“%1”을(를) %2에 저장했습니다</translation>
    </message>
    <message>
        <location filename="../app/conversations/conversation_list_controller.cpp" line="65"/>
        <source>The new name was not saved: %1</source>
        <translation>새 이름을 저장하지 못했습니다: %1</translation>
    </message>
</context>
<context>
    <name>kvchat::app::DocumentController</name>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="95"/>
        <location filename="../app/documents/document_controller.cpp" line="111"/>
        <source>Documents cannot be stored: %1</source>
        <translation>문서를 저장할 수 없습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="102"/>
        <source>“%1” will be loaded when the model is ready.</source>
        <translation>모델이 준비되면 “%1”을(를) 불러옵니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="166"/>
        <source>Loading the document was cancelled.</source>
        <translation>문서 불러오기를 취소했습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_preview.cpp" line="81"/>
        <location filename="../app/documents/document_preview.cpp" line="111"/>
        <location filename="../app/documents/document_preview.cpp" line="112"/>
        <source>Counting tokens…</source>
        <translation>토큰 세는 중…</translation>
    </message>
    <message>
        <location filename="../app/documents/document_preview.cpp" line="155"/>
        <source>Counting chunks…</source>
        <translation>청크 세는 중…</translation>
    </message>
    <message>
        <location filename="../app/documents/document_preview.cpp" line="81"/>
        <source>Load a model to count the tokens.</source>
        <translation>토큰을 세려면 모델을 불러오세요.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_preview.cpp" line="30"/>
        <source>Sent whole it needs %1 tokens with this conversation; the context holds %2. Summarize it instead.</source>
        <translation>통째로 보내면 이 대화와 함께 %1 토큰이 필요하지만 컨텍스트는 %2 토큰까지 담습니다. 대신 요약하세요.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_preview.cpp" line="35"/>
        <source>Its KV cache (%1) needs more than the free memory (%2). Summarize it instead.</source>
        <translation>KV 캐시(%1)가 여유 메모리(%2)보다 큽니다. 대신 요약하세요.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_preview.cpp" line="171"/>
        <source>Cannot summarize: %1</source>
        <translation>요약할 수 없습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="251"/>
        <source>“%1” does not fit the context window whole: summarize it instead.</source>
        <translation>“%1”은(는) 컨텍스트 창에 통째로 들어가지 않습니다. 대신 요약하세요.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="262"/>
        <source>The stored text of “%1” cannot be read.</source>
        <translation>저장된 “%1”의 텍스트를 읽을 수 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="327"/>
        <source>The demo model was not trained to follow instructions: it continues King James verses, so its summary will not be a summary.</source>
        <translation>데모 모델은 지시를 따르도록 학습되지 않았습니다. 킹 제임스 성경 구절을 이어 쓸 뿐이라 요약을 시켜도 요약이 나오지 않습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="330"/>
        <source>This model was not trained to follow instructions (its file has no chat template): its summary may not be a summary.</source>
        <translation>이 모델은 지시를 따르도록 학습되지 않았습니다(파일에 채팅 템플릿이 없음). 요약을 시켜도 요약이 아닐 수 있습니다.</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="338"/>
        <source>Another summary is being written (in “%1”): one job runs at a time. Resume this one when it is done, or cancel that one first.</source>
        <translation>다른 요약을 쓰는 중입니다 (“%1”에서). 작업은 한 번에 하나만 실행됩니다. 그 작업이 끝나면 이 작업을 재개하거나, 먼저 그 작업을 취소하세요.</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/documents/document_controller.cpp" line="348"/>
        <source>Open a model to resume this summary; the %n summaries written so far are kept.</source>
        <translation>
            <numerusform>이 요약을 재개하려면 모델을 여세요. 지금까지 쓴 요약 %n개는 보관됩니다.</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="374"/>
        <source>resuming after %1 summaries</source>
        <translation>요약 %1개 이후부터 재개</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="374"/>
        <source>counting chunks</source>
        <translation>조각 세는 중</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="446"/>
        <source>The summary is stored with its job but could not be added to the conversation: %1</source>
        <translation>요약은 작업과 함께 저장되었지만 대화에 추가하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="453"/>
        <source>cancelled after %1 summaries</source>
        <translation>요약 %1개 이후 취소됨</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="456"/>
        <source>Summarizing “%1” failed: %2</source>
        <translation>“%1” 요약 실패: %2</translation>
    </message>
    <message>
        <location filename="../app/documents/document_controller.cpp" line="511"/>
        <source>%1 of about %2 summaries written</source>
        <translation>약 %2개 중 %1개 요약 완료</translation>
    </message>
</context>
<context>
    <name>kvchat::app::LocalServerController</name>
    <message>
        <location filename="../app/server/local_server_controller.cpp" line="120"/>
        <source>The local server stopped to take the new chat template and did not start again: %1</source>
        <translation>로컬 서버가 새 채팅 템플릿을 적용하려고 멈춘 뒤 다시 시작하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/server/local_server_controller.cpp" line="156"/>
        <source>No model is loaded: the server starts once one is.</source>
        <translation>불러온 모델이 없습니다. 모델을 불러오면 서버가 시작됩니다.</translation>
    </message>
    <message>
        <location filename="../app/server/local_server_controller.cpp" line="175"/>
        <source>Not serving on %1 without an API key: other machines could use the model and read the conversations. Set a key, or tick &quot;Serve without a key anyway&quot;.</source>
        <translation>API 키 없이 %1에서 제공하지 않습니다: 다른 컴퓨터가 모델을 사용하고 대화를 읽을 수 있습니다. 키를 설정하거나 &quot;키 없이 그래도 제공&quot;을 선택하세요.</translation>
    </message>
    <message>
        <location filename="../app/server/local_server_controller.cpp" line="194"/>
        <source>the chat template changed</source>
        <translation>채팅 템플릿이 바뀜</translation>
    </message>
    <message>
        <location filename="../app/server/local_server_controller.cpp" line="195"/>
        <source>another model was loaded</source>
        <translation>다른 모델을 불러옴</translation>
    </message>
    <message>
        <location filename="../app/server/local_server_controller.cpp" line="196"/>
        <source>settings changed (Restart)</source>
        <translation>설정 변경(다시 시작)</translation>
    </message>
    <message>
        <location filename="../app/server/local_server_controller.cpp" line="198"/>
        <source>The local server restarted: %1.</source>
        <translation>로컬 서버가 다시 시작되었습니다: %1.</translation>
    </message>
</context>
<context>
    <name>kvchat::app::MemoryState</name>
    <message>
        <location filename="../app/memory/memory_state.cpp" line="56"/>
        <source>%1 of %2 tokens (%3%)</source>
        <translation>%2 토큰 중 %1 토큰 (%3%)</translation>
    </message>
    <message>
        <location filename="../app/memory/memory_state.cpp" line="154"/>
        <source>Saved after the last reply (%1 on disk): reopening this conversation restores it without computing it again.</source>
        <translation>마지막 답변 후 저장했습니다 (디스크 %1). 이 대화를 다시 열면 다시 계산하지 않고 복원합니다.</translation>
    </message>
    <message>
        <location filename="../app/memory/memory_state.cpp" line="186"/>
        <source>This conversation&apos;s memory was restored from the snapshot on disk (%1): nothing had to be computed again.</source>
        <translation>이 대화의 메모리를 디스크의 스냅숏에서 복원했습니다 (%1). 다시 계산할 것이 없었습니다.</translation>
    </message>
    <message>
        <location filename="../app/memory/memory_state.cpp" line="190"/>
        <source>No snapshot on disk yet: one is saved after the next reply.</source>
        <translation>디스크에 아직 스냅숏이 없습니다. 다음 답변 후에 저장됩니다.</translation>
    </message>
    <message>
        <location filename="../app/memory/memory_state.cpp" line="194"/>
        <source>The snapshot on disk could not be used (made with another model or settings, or damaged): the conversation is computed again with the next message.</source>
        <translation>디스크의 스냅숏을 쓸 수 없었습니다 (다른 모델이나 설정으로 만들었거나 손상됨). 다음 메시지와 함께 대화를 다시 계산합니다.</translation>
    </message>
    <message>
        <location filename="../app/memory/memory_state.cpp" line="225"/>
        <source>KV live: open now</source>
        <translation>KV 사용 중: 지금 열려 있음</translation>
    </message>
    <message>
        <location filename="../app/memory/memory_state.cpp" line="225"/>
        <source>No KV yet</source>
        <translation>아직 KV 없음</translation>
    </message>
    <message>
        <location filename="../app/memory/memory_state.cpp" line="228"/>
        <source>KV in RAM: back with 0 tokens to evaluate</source>
        <translation>KV가 RAM에 있음: 계산할 토큰 0개로 돌아옴</translation>
    </message>
    <message>
        <location filename="../app/memory/memory_state.cpp" line="233"/>
        <source>KV on disk: back with a load of %1</source>
        <translation>KV가 디스크에 있음: %1을(를) 읽어 돌아옴</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/memory/memory_state.cpp" line="238"/>
        <source>No KV kept: %n token(s) to evaluate</source>
        <translation>
            <numerusform>보관된 KV 없음: 계산할 토큰 %n개</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/memory/memory_state.cpp" line="239"/>
        <source>No KV kept: evaluated again when opened</source>
        <translation>보관된 KV 없음: 열 때 다시 계산함</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/memory/memory_state.cpp" line="251"/>
        <source>This conversation&apos;s memory came back from RAM (%n token(s) held): nothing had to be computed or read again.</source>
        <translation>
            <numerusform>이 대화의 메모리가 RAM에서 돌아왔습니다 (토큰 %n개 보관): 다시 계산하거나 읽을 것이 없었습니다.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>kvchat::app::ModelController</name>
    <message>
        <location filename="../app/model/model_controller.cpp" line="64"/>
        <source>Chat template: %1</source>
        <translation>채팅 템플릿: %1</translation>
    </message>
    <message>
        <location filename="../app/model/model_controller.cpp" line="105"/>
        <source>Not applied: %1 %2.</source>
        <translation>적용하지 않음: %1 %2.</translation>
    </message>
    <message>
        <location filename="../app/model/model_controller.cpp" line="128"/>
        <source>Not applied: %1</source>
        <translation>적용하지 않음: %1</translation>
    </message>
    <message>
        <location filename="../app/model/model_controller.cpp" line="155"/>
        <source>Reloading %1 with the new engine settings: the conversation is computed again.</source>
        <translation>새 엔진 설정으로 %1을(를) 다시 불러오는 중입니다. 대화는 처음부터 다시 계산됩니다.</translation>
    </message>
    <message>
        <location filename="../app/model/model_controller.cpp" line="158"/>
        <source>Loading %1 again with the new engine settings.</source>
        <translation>새 엔진 설정으로 %1을(를) 다시 불러오는 중입니다.</translation>
    </message>
    <message>
        <location filename="../app/model/model_controller.cpp" line="250"/>
        <source>remote models are not available in this window</source>
        <translation>이 창에서는 원격 모델을 쓸 수 없습니다</translation>
    </message>
</context>
<context>
    <name>kvchat::app::ModelLibraryController</name>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="77"/>
        <source>kvchat cannot run it: %1</source>
        <translation>kvchat에서 실행할 수 없음: %1</translation>
    </message>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="78"/>
        <source>The memory cannot be computed: %1</source>
        <translation>메모리를 계산할 수 없습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="84"/>
        <source>%1 weights + %2 KV cache at %3 tokens = %4 (the free memory is not known).</source>
        <translation>가중치 %1 + %3 토큰의 KV 캐시 %2 = %4 (여유 메모리는 알 수 없음).</translation>
    </message>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="86"/>
        <source>%1 weights + %2 KV cache at %3 tokens = %4, of %5 free on the GPU: it fits.</source>
        <translation>가중치 %1 + %3 토큰의 KV 캐시 %2 = %4, GPU 여유 메모리 %5 안에 들어갑니다.</translation>
    </message>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="87"/>
        <source>%1 weights + %2 KV cache at %3 tokens = %4, of %5 free in RAM: it fits.</source>
        <translation>가중치 %1 + %3 토큰의 KV 캐시 %2 = %4, RAM 여유 메모리 %5 안에 들어갑니다.</translation>
    </message>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="89"/>
        <source>%1 weights + %2 KV cache at %3 tokens = %4, but only %5 is free on the GPU: it does not fit.</source>
        <translation>가중치 %1 + %3 토큰의 KV 캐시 %2 = %4인데 GPU 여유 메모리는 %5뿐이라 들어가지 않습니다.</translation>
    </message>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="91"/>
        <source>%1 weights + %2 KV cache at %3 tokens = %4, but only %5 is free in RAM: it does not fit.</source>
        <translation>가중치 %1 + %3 토큰의 KV 캐시 %2 = %4인데 RAM 여유 메모리는 %5뿐이라 들어가지 않습니다.</translation>
    </message>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="113"/>
        <source>the last one used</source>
        <translation>마지막으로 사용한 모델</translation>
    </message>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="115"/>
        <source>recently (%1 other models since)</source>
        <translation>최근 (그 뒤로 다른 모델 %1개)</translation>
    </message>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="117"/>
        <source>never</source>
        <translation>사용 안 함</translation>
    </message>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="172"/>
        <source>%1 is not there any more.</source>
        <translation>%1이(가) 더 이상 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="213"/>
        <source>%1 is in kvchat&apos;s models folder (%2), which is always listed: Forget only takes off models opened from elsewhere.</source>
        <translation>%1은(는) 항상 목록에 나오는 kvchat 모델 폴더(%2)에 있습니다. “목록에서 빼기”는 다른 곳에서 연 모델에만 쓸 수 있습니다.</translation>
    </message>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="224"/>
        <source>%1 is not in the recent list.</source>
        <translation>%1은(는) 최근 목록에 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="229"/>
        <source>%1 is off the list; the file stays on disk.</source>
        <translation>%1을(를) 목록에서 뺐습니다. 파일은 디스크에 그대로 있습니다.</translation>
    </message>
    <message>
        <location filename="../app/library/model_library_controller.cpp" line="204"/>
        <source>Removed %1 (%2) from disk.</source>
        <translation>%1(%2)을(를) 디스크에서 삭제했습니다.</translation>
    </message>
</context>
<context>
    <name>kvchat::app::ModelsPageController</name>
    <message>
        <location filename="../app/library/models_page_controller.cpp" line="65"/>
        <source>Downloads are not available: %1</source>
        <translation>다운로드를 사용할 수 없습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/library/models_page_controller.cpp" line="122"/>
        <source>about %1</source>
        <translation>약 %1</translation>
    </message>
    <message>
        <location filename="../app/library/models_page_controller.cpp" line="129"/>
        <source>fits: about %1 with a %2-token conversation, of %3 free on the GPU</source>
        <translation>들어감: %2토큰 대화에 약 %1, GPU 여유 %3 중</translation>
    </message>
    <message>
        <location filename="../app/library/models_page_controller.cpp" line="131"/>
        <source>fits: about %1 with a %2-token conversation, of %3 free</source>
        <translation>들어감: %2토큰 대화에 약 %1, 여유 메모리 %3 중</translation>
    </message>
    <message>
        <location filename="../app/library/models_page_controller.cpp" line="184"/>
        <source>%1 is no longer in %2 on the Hub.</source>
        <translation>Hub의 %2에 더 이상 %1 파일이 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/library/models_page_controller.cpp" line="200"/>
        <source>%1 The catalog stays listed; search and downloads work again once the Hub can be reached.</source>
        <translation>%1 카탈로그는 계속 표시됩니다. Hub에 연결되면 검색과 다운로드가 다시 작동합니다.</translation>
    </message>
    <message>
        <location filename="../app/library/models_page_controller.cpp" line="232"/>
        <source>No GGUF repository matches “%1”.</source>
        <translation>“%1”과(와) 일치하는 GGUF 저장소가 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/library/models_page_controller.cpp" line="268"/>
        <source>Left out (unsafe names): %1</source>
        <translation>제외됨 (안전하지 않은 이름): %1</translation>
    </message>
    <message>
        <location filename="../app/library/models_page_controller.cpp" line="270"/>
        <source>%1 has no GGUF file.</source>
        <translation>%1에는 GGUF 파일이 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/library/models_page_controller.cpp" line="282"/>
        <source>The Hub could not list the files of %1: %2
“Try again” asks it again.</source>
        <translation>Hub에서 %1의 파일 목록을 가져오지 못했습니다: %2
“다시 시도”를 누르면 다시 요청합니다.</translation>
    </message>
    <message>
        <location filename="../app/library/models_page_controller.cpp" line="289"/>
        <source>The Hub could not list the files of %1 (%2): %3
Shown below is what the catalog knows: each file&apos;s size and whether that file alone fits in the free memory (the KV cache is counted once the file&apos;s header can be read). Downloads need the Hub: “Try again” asks it again.</source>
        <translation>Hub에서 %1(%2)의 파일 목록을 가져오지 못했습니다: %3
아래에는 카탈로그에 있는 정보가 표시됩니다: 각 파일의 크기와, 그 파일만으로 여유 메모리에 들어가는지 여부(KV 캐시는 파일 헤더를 읽을 수 있게 되면 계산됩니다). 다운로드에는 Hub가 필요합니다: “다시 시도”를 누르면 다시 요청합니다.</translation>
    </message>
    <message>
        <location filename="../app/library/models_page_controller.cpp" line="316"/>
        <source>The fit cannot be checked in this build.</source>
        <translation>이 빌드에서는 들어가는지 확인할 수 없습니다.</translation>
    </message>
</context>
<context>
    <name>kvchat::app::RemoteModelsController</name>
    <message>
        <location filename="../app/remote/remote_models_controller.cpp" line="103"/>
        <source>%1 at %2</source>
        <translation>%2의 %1</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_models_controller.cpp" line="161"/>
        <source>It lists no model.</source>
        <translation>나열된 모델이 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_models_controller.cpp" line="182"/>
        <source>&apos;%1&apos; is not a remote model&apos;s name</source>
        <translation>&apos;%1&apos;은(는) 원격 모델 이름이 아닙니다</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_models_controller.cpp" line="217"/>
        <source>No remote model is loaded.</source>
        <translation>불러온 원격 모델이 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_models_controller.cpp" line="227"/>
        <source>%1 does not say its model&apos;s shape</source>
        <translation>%1은(는) 모델 구조를 알려 주지 않습니다</translation>
    </message>
</context>
<context>
    <name>kvchat::app::SystemPromptController</name>
    <message>
        <location filename="../app/conversations/system_prompt_controller.cpp" line="72"/>
        <source>The default system prompt was not applied: %1</source>
        <translation>기본 시스템 프롬프트를 적용하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/conversations/system_prompt_controller.cpp" line="79"/>
        <source>Give the prompt a name.</source>
        <translation>프롬프트 이름을 입력하세요.</translation>
    </message>
    <message>
        <location filename="../app/conversations/system_prompt_controller.cpp" line="82"/>
        <source>A saved prompt is already named “%1”. Choose another name.</source>
        <translation>“%1”(이)라는 저장된 프롬프트가 이미 있습니다. 다른 이름을 고르세요.</translation>
    </message>
    <message>
        <location filename="../app/conversations/system_prompt_controller.cpp" line="95"/>
        <source>Nothing can be saved: the database could not be opened.</source>
        <translation>저장할 수 없습니다: 데이터베이스를 열지 못했습니다.</translation>
    </message>
    <message>
        <location filename="../app/conversations/system_prompt_controller.cpp" line="105"/>
        <location filename="../app/conversations/system_prompt_controller.cpp" line="149"/>
        <source>The prompt was not saved: %1</source>
        <translation>프롬프트를 저장하지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/conversations/system_prompt_controller.cpp" line="120"/>
        <location filename="../app/conversations/system_prompt_controller.cpp" line="133"/>
        <source>The system prompt was not changed: %1</source>
        <translation>시스템 프롬프트를 바꾸지 못했습니다: %1</translation>
    </message>
    <message>
        <location filename="../app/conversations/system_prompt_controller.cpp" line="159"/>
        <source>The prompt is saved, but its conversations keep their old text: %1</source>
        <translation>프롬프트는 저장되었지만 대화들은 이전 텍스트를 유지합니다: %1</translation>
    </message>
    <message>
        <location filename="../app/conversations/system_prompt_controller.cpp" line="176"/>
        <source>The prompt was not deleted: %1</source>
        <translation>프롬프트를 삭제하지 못했습니다: %1</translation>
    </message>
</context>
<context>
    <name>kvchat::app::ToolsController</name>
    <message>
        <location filename="../app/tools/tools_controller.cpp" line="120"/>
        <source>%1 could not be read: %2</source>
        <translation>%1을(를) 읽을 수 없습니다: %2</translation>
    </message>
    <message>
        <location filename="../app/tools/tools_controller.cpp" line="164"/>
        <source>%1 could not be read, so it is not changed here: mend it (or move it aside), then Reload.</source>
        <translation>%1을(를) 읽을 수 없어 여기서 바꾸지 않습니다: 파일을 고치거나 옮긴 뒤 다시 읽으세요.</translation>
    </message>
    <message>
        <location filename="../app/tools/tools_controller.cpp" line="168"/>
        <source>%1 was not saved: %2</source>
        <translation>%1이(가) 저장되지 않았습니다: %2</translation>
    </message>
    <message>
        <location filename="../app/tools/tools_controller.cpp" line="179"/>
        <source>The server needs a name.</source>
        <translation>서버에 이름이 필요합니다.</translation>
    </message>
    <message>
        <location filename="../app/tools/tools_controller.cpp" line="180"/>
        <source>A server named %1 is there already.</source>
        <translation>%1이라는 서버가 이미 있습니다.</translation>
    </message>
    <message>
        <location filename="../app/tools/tools_controller.cpp" line="181"/>
        <source>The server needs a command to start it.</source>
        <translation>서버를 시작할 명령이 필요합니다.</translation>
    </message>
    <message>
        <location filename="../app/tools/tools_controller.cpp" line="186"/>
        <source>A server reached at a URL takes no arguments.</source>
        <translation>URL로 연결하는 서버는 인수를 받지 않습니다.</translation>
    </message>
    <message>
        <location filename="../app/tools/tools_controller.cpp" line="194"/>
        <source>An environment line is KEY=value, not &quot;%1&quot;.</source>
        <translation>환경 변수 줄은 &quot;%1&quot;이 아니라 KEY=value 형식입니다.</translation>
    </message>
    <message>
        <location filename="../app/tools/tools_controller.cpp" line="205"/>
        <location filename="../app/tools/tools_controller.cpp" line="217"/>
        <source>No server named %1.</source>
        <translation>%1이라는 서버가 없습니다.</translation>
    </message>
</context>
<context>
    <name>kvchat::hub::DownloadManager</name>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="107"/>
        <source>The download state database is not open.</source>
        <translation>다운로드 상태 데이터베이스가 열려 있지 않습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="111"/>
        <source>Refused repository name “%1”: %2</source>
        <translation>저장소 이름 “%1”을(를) 거부했습니다: %2</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="113"/>
        <source>Refused file name “%1”: %2</source>
        <translation>파일 이름 “%1”을(를) 거부했습니다: %2</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="116"/>
        <source>Refused file name “%1”: %2.</source>
        <translation>파일 이름 “%1”을(를) 거부했습니다: %2.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="119"/>
        <source>The Hub gave no SHA-256 for %1: kvchat does not accept a file it cannot verify.</source>
        <translation>Hub가 %1의 SHA-256을 제공하지 않았습니다. kvchat은 확인할 수 없는 파일을 받지 않습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="122"/>
        <source>Refused %1: %2</source>
        <translation>%1 거부: %2</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="126"/>
        <source>Refused URL %1: https only (plain http only to this computer).</source>
        <translation>URL %1 거부: https만 허용 (일반 http는 이 컴퓨터로만).</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="128"/>
        <source>Cannot create the models directory %1.</source>
        <translation>모델 디렉터리 %1을(를) 만들 수 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="134"/>
        <source>%1 is already in the models directory.</source>
        <translation>%1은(는) 이미 모델 디렉터리에 있습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="160"/>
        <location filename="../app/hub/download_manager.cpp" line="195"/>
        <source>Not enough disk space for %1: %2 needed, %3 free in %4.</source>
        <translation>%1을(를) 위한 디스크 공간이 부족합니다: %2 필요, %4의 여유 공간 %3.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="182"/>
        <source>No such download.</source>
        <translation>해당 다운로드가 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="186"/>
        <source>%1 is already downloaded.</source>
        <translation>%1은(는) 이미 다운로드되었습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="217"/>
        <location filename="../app/hub/download_manager_http.cpp" line="142"/>
        <source>Cannot write %1: %2</source>
        <translation>%1을(를) 쓸 수 없습니다: %2</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="249"/>
        <source>Checking the %1 already downloaded</source>
        <translation>이미 다운로드된 %1 확인 중</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="91"/>
        <source>The server answered with another byte range (%1) than asked (from %2).</source>
        <translation>서버가 요청한 범위(%2부터)와 다른 바이트 범위(%1)로 응답했습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="100"/>
        <source>The server&apos;s file has %1 bytes, the Hub said %2.</source>
        <translation>서버의 파일은 %1바이트인데, Hub는 %2바이트라고 했습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="106"/>
        <source>Refused: an absurd size (%1 bytes).</source>
        <translation>거부됨: 터무니없는 크기 (%1바이트).</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="137"/>
        <source>The server sent more than the %1 bytes the Hub said.</source>
        <translation>서버가 Hub가 알려 준 %1바이트보다 많이 보냈습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="170"/>
        <source>Refused a redirect to %1 (https only).</source>
        <translation>%1(으)로의 리디렉션을 거부했습니다 (https만 허용).</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="176"/>
        <source>Too many redirects.</source>
        <translation>리디렉션이 너무 많습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="188"/>
        <source>The Hub refused the access token for %1 (HTTP %2): accept the model&apos;s licence on its page, or check the token.</source>
        <translation>Hub가 %1에 대한 액세스 토큰을 거부했습니다 (HTTP %2). 모델 페이지에서 라이선스에 동의하거나 토큰을 확인하세요.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="192"/>
        <source>%1 is in a gated repository (HTTP %2): it needs a Hugging Face access token.</source>
        <translation>%1은(는) 접근이 제한된 저장소에 있습니다 (HTTP %2). Hugging Face 액세스 토큰이 필요합니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="199"/>
        <source>%1 was not found on the Hub (HTTP 404).</source>
        <translation>Hub에서 %1을(를) 찾을 수 없습니다 (HTTP 404).</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="210"/>
        <source>The server refused the range: starting over</source>
        <translation>서버가 범위 요청을 거부했습니다: 처음부터 다시 시작</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/hub/download_manager_http.cpp" line="218"/>
        <source>The Hub asks to wait (HTTP 429): retrying in %n s</source>
        <translation>
            <numerusform>Hub가 기다려 달라고 요청했습니다 (HTTP 429): %n초 후 다시 시도</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="223"/>
        <source>The Hub refused %1 (HTTP %2).</source>
        <translation>Hub가 %1을(를) 거부했습니다 (HTTP %2).</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="228"/>
        <source>Server error (HTTP %1): retrying</source>
        <translation>서버 오류 (HTTP %1): 다시 시도하는 중</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="236"/>
        <source>no data for %1 ms</source>
        <translation>%1 ms 동안 데이터 없음</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="238"/>
        <source>the connection ended early</source>
        <translation>연결이 일찍 끝남</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager_http.cpp" line="240"/>
        <source>Connection lost (%1): resuming</source>
        <translation>연결 끊김 (%1): 재개하는 중</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/hub/download_manager_http.cpp" line="251"/>
        <source>%1 — gave up after %n attempts; resume to try again.</source>
        <translation>
            <numerusform>%1 — %n번 시도 후 포기했습니다. 다시 시도하려면 재개하세요.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/hub/download_manager_http.cpp" line="253"/>
        <source>%1 — the server stopped at %2 or before %n times in a row and ignores Range (it sends the file from its start again): giving up; resume to try again.</source>
        <translation>
            <numerusform>%1 — 서버가 %n번 연속으로 %2 이하에서 멈췄고 Range를 무시합니다(파일을 처음부터 다시 보냅니다). 포기합니다. 다시 시도하려면 재개하세요.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/hub/download_manager_http.cpp" line="260"/>
        <source>%1 — %n attempts in a row got no further than %2: giving up; resume to try again.</source>
        <translation>
            <numerusform>%1 — %n번 연속으로 시도했지만 %2보다 더 진행하지 못했습니다. 포기합니다. 다시 시도하려면 재개하세요.</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="274"/>
        <source>Checking the SHA-256</source>
        <translation>SHA-256 확인 중</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="279"/>
        <source>%1 has %2 bytes, the Hub said %3: removed.</source>
        <translation>%1은(는) %2바이트인데 Hub는 %3바이트라고 했습니다: 삭제했습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="289"/>
        <source>%1 is not the Hub&apos;s file (SHA-256 %2, expected %3): the download was removed.</source>
        <translation>%1은(는) Hub의 파일이 아닙니다 (SHA-256 %2, 예상 값 %3). 다운로드를 삭제했습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="297"/>
        <source>%1 appeared in the models directory meanwhile: the download was removed.</source>
        <translation>그사이 모델 디렉터리에 %1이(가) 생겼습니다. 다운로드를 삭제했습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="304"/>
        <source>Cannot move the download to %1.</source>
        <translation>다운로드를 %1(으)로 옮길 수 없습니다.</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="313"/>
        <source>Downloaded and verified</source>
        <translation>다운로드 및 확인 완료</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="355"/>
        <source>Paused</source>
        <translation>일시 중지됨</translation>
    </message>
    <message>
        <location filename="../app/hub/download_manager.cpp" line="370"/>
        <source>Cancelled: the partial file was removed</source>
        <translation>취소됨: 일부만 받은 파일을 삭제했습니다</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <location filename="../app/window/app_window.cpp" line="136"/>
        <source>Another kvchat on this data folder was not trusted, so this window opened on its own: %1.</source>
        <translation>이 데이터 폴더의 다른 kvchat 인스턴스를 신뢰할 수 없어 이 창을 따로 열었습니다: %1.</translation>
    </message>
    <message>
        <location filename="../app/window/app_window.cpp" line="143"/>
        <source>Files opened later will not come to this window: %1.</source>
        <translation>나중에 여는 파일은 이 창으로 오지 않습니다: %1.</translation>
    </message>
</context>
</TS>
