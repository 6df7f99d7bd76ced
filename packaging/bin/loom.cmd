@echo off
rem The `loom` command beside the packaged app: the app's own binary runs the command line.
"%~dp0..\..\Loom.exe" --cli %*
