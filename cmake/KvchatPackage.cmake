# Installation layout and packages (`make package`: CPack writes kvchat_<version>_amd64.deb,
# kvchat-cuda_<version>_amd64.deb where the CUDA backend is built, and one .tar.gz of all).
#
#   /usr/bin/kvchat, /usr/bin/kvchat-cli
#   /usr/lib/kvchat/plugins/libkvchat-cuda.so  the CUDA backend plugin (package kvchat-cuda)
#   /usr/share/kvchat/models/kjv-demo-f16.gguf the demo model (found from the binaries as
#                                              ../share/kvchat/models, as in the build tree)
#   /usr/share/applications, metainfo, mime/packages (application/x-gguf), icons/hicolor,
#   man/man1, doc/kvchat{,-cuda}
#
# The version is project(VERSION) in the top-level CMakeLists.txt, nowhere else; the release
# date beside it. Runtime dependencies come from dpkg-shlibdeps on the installed binaries.
include(GNUInstallDirs)

set(KVCHAT_APP_ID io.github.kvchat.kvchat)
set(KVCHAT_VERSION ${PROJECT_VERSION})  # for the templates below
set(installer ${PROJECT_SOURCE_DIR}/installer)
set(generated ${CMAKE_BINARY_DIR}/installer)
file(MAKE_DIRECTORY ${generated})

# ---- files made from templates: AppStream metadata, man pages, changelog ------------------
execute_process(COMMAND date -R -u -d "${KVCHAT_RELEASE_DATE} 12:00"
                OUTPUT_VARIABLE KVCHAT_CHANGELOG_DATE OUTPUT_STRIP_TRAILING_WHITESPACE)
configure_file(${installer}/${KVCHAT_APP_ID}.metainfo.xml.in ${generated}/${KVCHAT_APP_ID}.metainfo.xml @ONLY)
configure_file(${installer}/changelog.in ${generated}/changelog @ONLY)
foreach(page kvchat kvchat-cli)
  configure_file(${installer}/man/${page}.1.in ${generated}/${page}.1 @ONLY)
endforeach()

# Debian wants man pages and changelogs compressed (gzip -9n: no name, no time stamp).
find_program(KVCHAT_GZIP gzip REQUIRED)
set(compressed)
foreach(f kvchat.1 kvchat-cli.1 changelog)
  add_custom_command(OUTPUT ${generated}/${f}.gz
                     COMMAND ${KVCHAT_GZIP} -9n -c ${generated}/${f} > ${generated}/${f}.gz
                     DEPENDS ${generated}/${f} VERBATIM)
  list(APPEND compressed ${generated}/${f}.gz)
endforeach()

# PNG icons rendered from the one SVG.
find_program(KVCHAT_RSVG rsvg-convert REQUIRED)
set(icon_svg ${installer}/icons/${KVCHAT_APP_ID}.svg)
set(icon_sizes 16 24 32 48 64 128 256)
set(icons)
foreach(size ${icon_sizes})
  set(png ${generated}/icons/${size}x${size}/${KVCHAT_APP_ID}.png)
  add_custom_command(OUTPUT ${png}
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${generated}/icons/${size}x${size}
                     COMMAND ${KVCHAT_RSVG} -w ${size} -h ${size} ${icon_svg} -o ${png}
                     DEPENDS ${icon_svg} VERBATIM)
  list(APPEND icons ${png})
endforeach()
add_custom_target(kvchat_install_files ALL DEPENDS ${compressed} ${icons})

# ---- what is installed, by package (component) -------------------------------------------
install(TARGETS kvchat-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT main)
if(TARGET kvchat)
  install(TARGETS kvchat RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT main)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/resources/models/kjv-demo-f16.gguf
        DESTINATION ${CMAKE_INSTALL_DATADIR}/kvchat/models COMPONENT main)
install(FILES ${installer}/${KVCHAT_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications COMPONENT main)
# The GGUF file type (application/x-gguf) the desktop entry opens; dpkg's trigger on
# share/mime/packages runs update-mime-database.
install(FILES ${installer}/${KVCHAT_APP_ID}.mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
        RENAME ${KVCHAT_APP_ID}.xml COMPONENT main)
install(FILES ${generated}/${KVCHAT_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo COMPONENT main)
install(FILES ${icon_svg} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps COMPONENT main)
foreach(size ${icon_sizes})
  install(FILES ${generated}/icons/${size}x${size}/${KVCHAT_APP_ID}.png
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps COMPONENT main)
endforeach()
install(FILES ${generated}/kvchat.1.gz ${generated}/kvchat-cli.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
        COMPONENT main)
install(FILES ${installer}/copyright ${generated}/changelog.gz DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/kvchat
        COMPONENT main)

set(components main)
if(TARGET kvchat-cuda)
  # A private plugin directory the binaries find as ../lib/kvchat/plugins (not multiarch; and
  # not directly under lib/, where CPack would add needless ldconfig calls).
  install(TARGETS kvchat-cuda LIBRARY DESTINATION lib/kvchat/plugins COMPONENT cuda)
  install(FILES ${installer}/copyright ${generated}/changelog.gz DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/kvchat-cuda
          COMPONENT cuda)
  list(APPEND components cuda)
endif()

# ---- CPack --------------------------------------------------------------------------------
set(CPACK_GENERATOR DEB TGZ)
set(CPACK_PACKAGE_NAME kvchat)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The kvchat developers")
set(CPACK_PACKAGE_CONTACT "The kvchat developers <kvchat@users.noreply.github.com>")
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPackDeb would prepend it to every package's
# description; each component's description starts with its own synopsis line.
set(CPACK_PACKAGE_HOMEPAGE_URL https://github.com/kvchat/kvchat)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL ${components})
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)  # one .tar.gz with everything
set(CPACK_PACKAGE_FILE_NAME kvchat_${PROJECT_VERSION}_amd64)  # the .tar.gz; the .deb names are DEB-DEFAULT

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <name>_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_MAIN_PACKAGE_NAME kvchat)
set(CPACK_DEBIAN_MAIN_PACKAGE_SUGGESTS kvchat-cuda)
set(CPACK_DEBIAN_MAIN_PACKAGE_RECOMMENDS "fonts-noto-cjk | fonts-nanum")  # Korean glyphs for the Korean window
# Runtime QML modules the window loads (not linked libraries, so not found by shlibdeps).
set(CPACK_DEBIAN_MAIN_PACKAGE_DEPENDS
    "qml6-module-qtquick, qml6-module-qtquick-controls, qml6-module-qtquick-layouts, qml6-module-qtquick-window, qml6-module-qtquick-templates, qml6-module-qtqml-workerscript, qml6-module-qtquick-dialogs, qml6-module-qt-labs-folderlistmodel, qml6-module-qtcore, qml6-module-qtcharts, libqt6sql6-sqlite")
set(CPACK_DEBIAN_MAIN_DESCRIPTION
    "chat with a local language model and watch its KV cache
kvchat runs a language model on this computer and shows, in a live memory
panel, how the model's weights and its growing KV cache share the memory.
It opens GGUF models (Llama, Mistral, Qwen, Gemma, Phi; quantized or not),
summarizes long documents and ships a small demo model. kvchat-cli runs the
same engine from the command line.")
set(CPACK_DEBIAN_CUDA_PACKAGE_NAME kvchat-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "kvchat (= ${PROJECT_VERSION})")
# NVIDIA's CUDA runtime and cuBLAS come from NVIDIA's repository, not Debian's: found by
# dpkg-shlibdeps in the toolkit's directory but owned by no Debian package here, so they
# are named as a recommendation.
set(CPACK_DEBIAN_CUDA_PACKAGE_RECOMMENDS "cuda-cudart-13-0, libcublas-13-0")
if(CUDAToolkit_LIBRARY_DIR)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR})
endif()
set(CPACK_DEBIAN_CUDA_DESCRIPTION
    "CUDA backend of kvchat (NVIDIA GPUs)
The plugin kvchat and kvchat-cli load when a session runs on an NVIDIA GPU.
It needs the CUDA runtime and cuBLAS; without this package kvchat runs on
the CPU.")
include(CPack)
